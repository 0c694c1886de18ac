package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/simcli"
	"github.com/zksim/zksim/zoo"
)

// runHerd shows the herd effect: for N waiters, how many clients each
// release wakes, for the herd-free lock and the directory-watching one.
func runHerd(args []string, stdout, stderr io.Writer) int {
	fs := simcli.NewFlags("herd", "usage: zksim herd [-waiters 10,100,1000]\n\nClients woken per release: herd-free lock vs directory watch.\n\n", stderr)
	waiters := fs.String("waiters", "10,100,1000", "comma-separated numbers of waiting clients (2-2000)")
	if code := simcli.ParseFlags(fs, args); code >= 0 {
		return code
	}
	var ns []int
	for _, s := range strings.Split(*waiters, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 2 || n > 2000 {
			return simcli.UsageError("zksim", fs, "-waiters: %q is not a number from 2 to 2000", s)
		}
		ns = append(ns, n)
	}
	dirwatch, _ := zoo.Lookup(zoo.NameDirWatch)
	fmt.Fprintln(stdout, "clients woken per release of the lock, mean (max):")
	fmt.Fprintf(stdout, "%-8s  %-22s  %s\n", "waiters", "lock (herd-free)", "zoo/dirwatch (herd)")
	for _, n := range ns {
		a := herdFigure(zoo.Mutex(), n)
		b := herdFigure(dirwatch.Recipe, n)
		fmt.Fprintf(stdout, "%-8d  %-22s  %s\n", n, a, b)
	}
	return 0
}

// figure is a herd measurement.
type figure struct {
	mean    float64
	max     int
	changes int  // releases measured
	partial bool // the run was cut short; the figure covers its releases
}

func (f figure) String() string {
	s := fmt.Sprintf("%.2f (%d)", f.mean, f.max)
	if f.partial {
		s += fmt.Sprintf(" over the first %d releases", f.changes)
	}
	return s
}

// herdSteps bounds one herd run: a directory-watching lock does work
// cubic in the waiters (each change wakes all, each re-lists all).
const herdSteps = 100000

// herdFigure runs n clients acquiring once each, without faults, and
// returns the clients woken per change of the lock directory.
func herdFigure(r recipe.Lock, n int) figure {
	rep, err := harness.Run(sim.Config{NoTrace: true, TickPercent: 1, MaxSteps: herdSteps}, sim.NewSeeded(1),
		harness.Lock(r, harness.Workload{Clients: n, Acquisitions: 1}))
	if err != nil {
		return figure{}
	}
	f := figure{partial: rep.Result.Bounded}
	woken := 0
	for _, z := range rep.Deletes { // each a release: no faults, no give-ups
		k := rep.Herd[z]
		woken += k
		f.changes++
		f.max = max(f.max, k)
	}
	if f.changes > 0 {
		f.mean = float64(woken) / float64(f.changes)
	}
	return f
}
