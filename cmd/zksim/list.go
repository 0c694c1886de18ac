package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/zksim/zksim/lock/zoo"
)

// runList prints what zksim run accepts.
func runList(_ []string, stdout, _ io.Writer) int {
	fmt.Fprintln(stdout, "recipes (-recipe):")
	fmt.Fprintf(stdout, "  %-22s %s\n", "lock", "herd-free exclusive lock (zksim's lock.Mutex)")
	fmt.Fprintf(stdout, "  %-22s %s\n", "rwlock", "herd-free read/write lock (zksim's rwlock.RWMutex)")
	for _, ex := range zoo.Exhibits() {
		fmt.Fprintf(stdout, "  %-22s BROKEN (%s): %s\n", ex.Name, ex.Violation, firstSentence(ex.Bug))
	}
	fmt.Fprintln(stdout, "\nfaults (-faults kind=count,...; default: "+describeFaults()+"):")
	for _, k := range faultKinds {
		fmt.Fprintf(stdout, "  %-22s %s\n", k.name, k.doc)
	}
	fmt.Fprintf(stdout, "  %-22s %s\n", "percent", "chance (0-100) that a step injects a fault when one is possible")
	fmt.Fprintln(stdout, "\nstrategies (-strategy):")
	fmt.Fprintf(stdout, "  %-22s %s\n", "random", "uniform random walk over the enabled events")
	fmt.Fprintf(stdout, "  %-22s %s\n", "pct", "probabilistic concurrency testing: client priorities with 2 change points")
	return 0
}

func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

func describeFaults() string {
	f := defaultFaults
	return fmt.Sprintf("percent=%d,lose-request=%d,lose-reply=%d,disconnect=%d,crash=%d,pause=%d,reap=%d",
		f.Percent, f.LoseRequest, f.LoseReply, f.Disconnect, f.Crash, f.Pause, f.Reap)
}
