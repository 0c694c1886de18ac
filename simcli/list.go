package simcli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/zksim/zksim/internal/simhook"
)

// runList prints what run accepts.
func (c *CLI) runList(args []string, stdout, stderr io.Writer) int {
	fs := NewFlags("list", fmt.Sprintf("usage: %s list\n\nName every recipe, fault and strategy.\n", c.name()), stderr)
	if code := c.parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return c.usageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	fmt.Fprintln(stdout, "recipes (-recipe):")
	for _, r := range c.Recipes {
		fmt.Fprintln(stdout, strings.TrimRight(fmt.Sprintf("  %-22s %s", r.Name, c.Docs[r.Name]), " "))
	}
	c.listSubjects(stdout)
	if len(c.Aliases) > 0 {
		fmt.Fprintln(stdout, "\naliases (-recipe):")
		for _, a := range slices.Sorted(maps.Keys(c.Aliases)) {
			fmt.Fprintf(stdout, "  %-22s %s\n", a, c.Aliases[a])
		}
	}
	fmt.Fprintln(stdout, "\nfaults (-faults kind=count,...; default: "+describeFaults()+"):")
	for _, k := range faultKinds {
		doc := k.Doc
		for _, a := range k.Aliases {
			doc += "; alias " + a + " (serve's old name)"
		}
		fmt.Fprintf(stdout, "  %-22s %s\n", k.Name, doc)
	}
	fmt.Fprintf(stdout, "  %-22s %s\n", "percent", "chance (0-100) that a step injects a fault when one is possible")
	fmt.Fprintln(stdout, "\nstrategies (-strategy):")
	for _, s := range strategies {
		fmt.Fprintf(stdout, "  %-22s %s\n", s.name, s.doc)
	}
	return ExitOK
}

func describeFaults() string {
	f := defaultFaults
	s := fmt.Sprintf("percent=%d", f.Percent)
	for _, k := range simhook.FaultKinds() {
		if !k.Illegal {
			s += fmt.Sprintf(",%s=%d", k.Name, *k.Budget(&f))
		}
	}
	return s
}

// listSubjects names the Subjects, a section per kind in order of first
// appearance: "barrier recipes (-recipe; -acquisitions counts each
// client's rounds):".
func (c *CLI) listSubjects(stdout io.Writer) {
	var kinds []string
	for _, w := range c.Subjects {
		if !slices.Contains(kinds, kindOf(w)) {
			kinds = append(kinds, kindOf(w))
		}
	}
	width := 22
	for _, w := range c.Subjects {
		width = max(width, len(w.Name()))
	}
	for _, kind := range kinds {
		title, unit := "workloads", "repetitions"
		if kind != "" {
			title = kind + " recipes"
		}
		for _, w := range c.Subjects {
			if kindOf(w) == kind && w.Shape().Unit != "" {
				unit = w.Shape().Unit
				break
			}
		}
		fmt.Fprintf(stdout, "\n%s (-recipe; -acquisitions counts each client's %s):\n", title, unit)
		for _, w := range c.Subjects {
			if kindOf(w) == kind {
				fmt.Fprintln(stdout, strings.TrimRight(fmt.Sprintf("  %-*s %s", width, w.Name(), c.Docs[w.Name()]), " "))
			}
		}
	}
}
