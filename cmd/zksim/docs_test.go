package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The README is the tour and the docs/ pages the manuals; the tests that
// keep them true read them through these helpers, from the module's root.
const moduleRoot = "../.."

// docFiles are the pages a reader gets, the README first, then every
// docs/*.md in name order, as paths relative to the module's root.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(moduleRoot, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs/*.md (%v)", err)
	}
	files := []string{"README.md"}
	for _, p := range pages {
		rel, _ := filepath.Rel(moduleRoot, p)
		files = append(files, filepath.ToSlash(rel))
	}
	slices.Sort(files[1:])
	return files
}

// readDoc reads one page, named relative to the module's root.
func readDoc(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docSection is the text under heading (a whole line such as "## Using
// zksim in CI") in page rel, up to the next heading of its level or
// above; the test fails if the page has no such heading.
func docSection(t *testing.T, rel, heading string) string {
	t.Helper()
	_, section, ok := strings.Cut(readDoc(t, rel), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no %q", rel, heading)
	}
	level := len(heading) - len(strings.TrimLeft(heading, "#"))
	lines := strings.Split(section, "\n")
	code := false // inside a fenced block, where # starts a comment
	for i, line := range lines {
		if strings.HasPrefix(line, "```") {
			code = !code
		}
		if n := headingLevel(line); !code && n > 0 && n <= level {
			return strings.Join(lines[:i], "\n")
		}
	}
	return section
}

// headingLevel is the level of a Markdown heading line (2 for "## x"),
// or 0 if the line is not a heading.
func headingLevel(line string) int {
	marks, _, ok := strings.Cut(line, " ")
	if !ok || marks == "" || strings.Trim(marks, "#") != "" {
		return 0
	}
	return len(marks)
}

// docLines are the lines of every page, each with the page it is on.
func docLines(t *testing.T) []docLine {
	t.Helper()
	var lines []docLine
	for _, f := range docFiles(t) {
		for _, l := range strings.Split(readDoc(t, f), "\n") {
			lines = append(lines, docLine{file: f, text: l})
		}
	}
	return lines
}

// docLine is a line of a page.
type docLine struct{ file, text string }

// mdLink matches a Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocs_LinksResolve: every relative link of the README and docs/
// names a file of the checkout, and an anchor names a heading of the page
// it points into, so that moving a section cannot leave a dead link.
func TestDocs_LinksResolve(t *testing.T) {
	n := 0
	for _, file := range docFiles(t) {
		for _, m := range mdLink.FindAllStringSubmatch(readDoc(t, file), -1) {
			target, anchor, _ := strings.Cut(m[1], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			rel := file
			if target != "" {
				rel = filepath.ToSlash(filepath.Join(filepath.Dir(file), target))
			}
			if _, err := os.Stat(filepath.Join(moduleRoot, rel)); err != nil {
				t.Errorf("%s links to %s: %v", file, m[1], err)
				continue
			}
			if anchor != "" && !slices.Contains(headingAnchors(t, rel), anchor) {
				t.Errorf("%s links to %s: %s has no heading with anchor %q", file, m[1], rel, anchor)
			}
		}
	}
	if n < 10 {
		t.Errorf("found %d relative links in the docs, want the README's links to its manuals", n)
	}
}

// headingAnchors are the anchors GitHub gives the headings of a page:
// lower case, spaces as hyphens, punctuation but - and _ left out.
func headingAnchors(t *testing.T, rel string) []string {
	t.Helper()
	var anchors []string
	code := false
	for _, line := range strings.Split(readDoc(t, rel), "\n") {
		if strings.HasPrefix(line, "```") {
			code = !code
		}
		if code || headingLevel(line) == 0 {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#"))) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		anchors = append(anchors, b.String())
	}
	return anchors
}
