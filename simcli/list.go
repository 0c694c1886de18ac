package simcli

import (
	"fmt"
	"io"
	"strings"
)

// runList prints what run accepts.
func (c *CLI) runList(args []string, stdout, stderr io.Writer) int {
	fs := NewFlags("list", fmt.Sprintf("usage: %s list\n\nName every recipe, fault and strategy.\n", c.name()), stderr)
	if code := ParseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return c.usageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	fmt.Fprintln(stdout, "recipes (-recipe):")
	for _, r := range c.Recipes {
		fmt.Fprintln(stdout, strings.TrimRight(fmt.Sprintf("  %-22s %s", r.Name, c.Docs[r.Name]), " "))
	}
	fmt.Fprintln(stdout, "\nfaults (-faults kind=count,...; default: "+describeFaults()+"):")
	for _, k := range faultKinds {
		doc := k.doc
		if k.alias != "" {
			doc += "; alias " + k.alias + " (serve's old name)"
		}
		fmt.Fprintf(stdout, "  %-22s %s\n", k.name, doc)
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
	return fmt.Sprintf("percent=%d,lose-request=%d,lose-reply=%d,disconnect=%d,crash=%d,pause=%d,reap=%d,abandon=%d",
		f.Percent, f.LoseRequest, f.LoseReply, f.Disconnect, f.Crash, f.Pause, f.Reap, f.Abandon)
}
