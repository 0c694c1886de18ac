package main

import (
	"bytes"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zksim/zksim/internal/longtest"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/zktest"
)

// TestReadme_Tour runs the README's two-minute tour as written (with the
// output directory in a temporary place) and checks what the README says
// the reader will see.
func TestReadme_Tour(t *testing.T) {
	tour := docSection(t, "README.md", "## A two-minute tour")
	for _, cmd := range []string{"go run ./cmd/zksim run -recipe zoo/noguidretry -faults lose-reply=2 -schedules 200 -out /tmp/zksim",
		"go run ./cmd/zksim replay /tmp/zksim/zoo_noguidretry-deadlock-seed", "go run ./cmd/zksim run -recipe zoo/assumeonwake -schedules 200",
		"`zksim list`", "`zksim herd`", "`zksim demo`", "deadlock"} {
		if !strings.Contains(tour, cmd) {
			t.Errorf("the README's tour no longer shows %q, which this test runs", cmd)
		}
	}
	dir := t.TempDir()
	var out bytes.Buffer
	if code := run([]string{"run", "-recipe", "zoo/noguidretry", "-faults", "lose-reply=2", "-schedules", "200", "-out", dir}, &out, io.Discard); code != 1 {
		t.Fatalf("run zoo/noguidretry: exit %d\n%s", code, out.String())
	}
	trace, _ := savedFiles(t, out.String())
	if filepath.Dir(trace) != dir || !strings.HasPrefix(filepath.Base(trace), "zoo_noguidretry-deadlock-seed") {
		t.Errorf("trace file %s, want zoo_noguidretry-deadlock-seed... in %s", trace, dir)
	}
	for _, want := range []string{"deadlock", "2 clients x 1 acquisitions", "lose-reply c2 create /locks/l/lock-",
		"report:   " + strings.TrimSuffix(trace, ".trace") + ".html", "replay:   go run ./cmd/zksim replay " + trace} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("run output lacks %q:\n%s", want, out.String())
		}
	}
	var replayed bytes.Buffer
	if code := run([]string{"replay", trace}, &replayed, io.Discard); code != 1 || !strings.Contains(replayed.String(), "verdict:\n  deadlock") {
		t.Errorf("replay: exit %d\n%s", code, replayed.String())
	}
	out.Reset()
	if code := run([]string{"run", "-recipe", "zoo/assumeonwake", "-schedules", "200", "-out", dir}, &out, io.Discard); code != 1 {
		t.Fatalf("run zoo/assumeonwake: exit %d", code)
	}
	_, html := savedFiles(t, out.String())
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "<h1>mutual-exclusion</h1>") || !strings.HasPrefix(filepath.Base(html), "zoo_assumeonwake-mutual-exclusion-seed") {
		t.Errorf("no report at %s (%v):\n%s", html, err, out.String())
	}
	for _, args := range [][]string{{"list"}, {"demo"}, {"herd", "-waiters", "10,100"}} {
		if code := run(args, io.Discard, io.Discard); code != 0 {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}

// TestDocs_ServeFaults applies every fault spec a page (the README,
// docs/serve.md) posts to the control interface, in order, to a server
// of its own whose first session is the one the pages name: each must be
// accepted.
func TestDocs_ServeFaults(t *testing.T) {
	specs := map[string][]string{}
	for _, line := range docLines(t) {
		if rest, ok := strings.CutPrefix(line.text, `curl -H "$H" -d '`); ok {
			spec, _, _ := strings.Cut(rest, "'")
			specs[line.file] = append(specs[line.file], spec)
		}
	}
	if len(specs["docs/serve.md"]) < 5 {
		t.Fatalf("found %d fault specs in docs/serve.md, want its control section's", len(specs["docs/serve.md"]))
	}
	for _, file := range slices.Sorted(maps.Keys(specs)) {
		srv, addr := zktest.ServeFake(t, netserver.Config{Machine: machine.Config{TickMillis: 500}})
		conn := dial(t, addr)
		for _, spec := range specs[file] {
			if err := srv.ApplyFaults(spec); err != nil {
				t.Errorf("%s spec %q: %v", file, spec, err)
			}
		}
		conn.Close()
	}
}

// TestDocs_RunCommands runs every simulated `zksim run` command of the
// README and docs/, once each, briefly (a few schedules, a short time
// limit, files in a temporary directory): each must be accepted (exit 0
// or 1, not 2).
func TestDocs_RunCommands(t *testing.T) {
	dir := t.TempDir()
	brief := map[string]string{"-schedules": "3", "-time": "10ms", "-out": dir, "-summary": filepath.Join(dir, "summary.json"),
		"-junit": filepath.Join(dir, "junit.xml")}
	n := 0
	for _, line := range docCommands(t, "go run ./cmd/zksim run ") {
		cmd := line.text
		if strings.Contains(cmd, "-servers") || strings.Contains(cmd, "-ensemble") {
			continue // real servers: TestRunReal_*, TestRunEnsemble_*
		}
		cmd, _, _ = strings.Cut(cmd, "#")
		cmd, _, _ = strings.Cut(cmd, ">") // stdout goes to the test's discard
		args := strings.Fields(strings.ReplaceAll(cmd, "${{ matrix.shard }}", "1"))
		for i := 1; i < len(args); i++ {
			if v, ok := brief[args[i-1]]; ok {
				args[i] = v
			}
		}
		if !slices.Contains(args, "-out") { // failures go to the test's directory
			args = append(args, "-out", dir)
		}
		if !slices.Contains(args, "-schedules") && !slices.Contains(args, "-time") {
			// A search with no budget (the exhaustive ones) runs until it
			// is done: a minute and more under -race. Their verdicts
			// are TestDocs_ExhaustiveCommandsAsCommented's, in the
			// long-test mode.
			args = append(args, "-time", brief["-time"])
		}
		n++
		if code := run(append([]string{"run"}, args...), io.Discard, io.Discard); code != 0 && code != 1 {
			t.Errorf("%s's zksim run %s: exit %d", line.file, cmd, code)
		}
	}
	if n < 5 {
		t.Errorf("found %d zksim run commands in the docs, want at least 5", n)
	}
}

// docCommands are the rest of every doc line holding prefix, each
// command once (the first page that shows it), in page order.
func docCommands(t *testing.T, prefix string) []docLine {
	t.Helper()
	var cmds []docLine
	seen := map[string]bool{}
	for _, line := range docLines(t) {
		_, cmd, ok := strings.Cut(line.text, prefix)
		if ok && !seen[cmd] {
			seen[cmd] = true
			cmds = append(cmds, docLine{file: line.file, text: cmd})
		}
	}
	return cmds
}

// TestDocs_ExhaustiveCommandsAsCommented runs the exhaustive commands of
// the README and docs/ whose comment promises an exit code, once each,
// unabridged (the exhaustion of the default bounds takes minutes under
// -race: a long test), and checks that code and the counterexample's
// deviations where the comment gives them.
func TestDocs_ExhaustiveCommandsAsCommented(t *testing.T) {
	longtest.Skip(t)
	exitComment := regexp.MustCompile(`exit (\d)$`)
	deviationsComment := regexp.MustCompile(`with (\d+) deviations`)
	n := 0
	for _, line := range docCommands(t, "go run ./cmd/zksim run ") {
		cmd, comment, _ := strings.Cut(line.text, "#")
		m := exitComment.FindStringSubmatch(strings.TrimSpace(comment))
		if m == nil || !strings.Contains(cmd, "-strategy exhaustive") {
			continue
		}
		n++
		args := append([]string{"run"}, strings.Fields(cmd)...)
		code, out, errb := runOut(t, append(args, "-out", t.TempDir())...)
		if want, _ := strconv.Atoi(m[1]); code != want {
			t.Errorf("%s's zksim run %s: exit %d, the page says %d\n%s%s", line.file, cmd, code, want, out, errb)
		}
		if d := deviationsComment.FindStringSubmatch(comment); d != nil && !strings.Contains(out, "counterexample with "+d[1]+" deviations") {
			t.Errorf("%s's zksim run %s: the page says a counterexample with %s deviations:\n%s", line.file, cmd, d[1], out)
		}
	}
	if n < 2 {
		t.Errorf("found %d exhaustive commands with an exit code in the docs, want at least 2", n)
	}
}

// TestDocs_WorkflowExample: the workflow docs/cli.md's CI section shows
// is the example file's, line for line, so the two cannot drift apart.
func TestDocs_WorkflowExample(t *testing.T) {
	workflow := readDoc(t, ".github/workflows/zksim.yml")
	section := docSection(t, "docs/cli.md", "## Using zksim in CI")
	_, block, ok := strings.Cut(section, "```yaml\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok || !strings.Contains(block, "zksim merge -junit") {
		t.Fatalf("no workflow in docs/cli.md's CI section")
	}
	if !strings.Contains(workflow, block) {
		t.Errorf("docs/cli.md's workflow is not part of .github/workflows/zksim.yml:\n%s", block)
	}
}

// TestReadme_TwoCommands: the README's quick start gives the two commands
// that do all set-up on a fresh machine, the main job and the whole test
// suite, and they are what CI runs: .ci/run execs the test command, and
// the test command runs the main job as the README gives it.
func TestReadme_TwoCommands(t *testing.T) {
	quick := docSection(t, "README.md", "## Quick start")
	_, block, _ := strings.Cut(quick, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	var cmds []string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		cmds = append(cmds, strings.TrimSpace(cmd))
	}
	if want := []string{"go run ./cmd/zksim", "scripts/test.sh"}; !slices.Equal(cmds, want) {
		t.Fatalf("the README's quick start gives %q, want %q", cmds, want)
	}
	if ci := readDoc(t, ".ci/run"); !slices.Contains(strings.Split(ci, "\n"), "exec "+cmds[1]) {
		t.Errorf(".ci/run does not exec %s:\n%s", cmds[1], ci)
	}
	if test := readDoc(t, cmds[1]); !slices.ContainsFunc(strings.Split(test, "\n"), func(l string) bool { return strings.TrimSpace(l) == cmds[0]+" >/dev/null" }) {
		t.Errorf("%s does not run the main job, %s", cmds[1], cmds[0])
	}
}
