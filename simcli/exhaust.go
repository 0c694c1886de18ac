package simcli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/sim"
)

// exhaust runs the systematic search and reports what it covered; on a
// counterexample it saves and prints it. Exit codes: 0 no violation (the
// report says whether the bounds were exhausted), 1 violation, 130
// stopped by Ctrl-C before any violation.
func (rc runConfig) exhaust(ctx context.Context, w io.Writer) int {
	b := rc.bounds
	b.Shard, b.Shards = rc.plan.shard, rc.plan.shards
	shard := ""
	if b.Shards > 1 {
		shard = fmt.Sprintf(", shard %d/%d", b.Shard, b.Shards)
	}
	workers := fmt.Sprintf("%d workers", b.Parallel)
	if b.Parallel == 1 {
		workers = "1 worker"
	}
	fmt.Fprintf(w, "%s run: %s%s, %s\n", rc.cli.name(), rc.describe(), shard, workers)
	model := "mutual exclusion"
	if rc.recipe.AcquireRead != nil {
		model = "reader/writer exclusion"
	}
	fmt.Fprintf(w, "checked: %s after every step, herd, fencing, orphans, deadlock, progress\n\n", model)
	cfg := sim.Config{Faults: rc.simFaults, Server: fakezk.Config{Seed: rc.plan.seed, Followers: rc.followers, Overflow: rc.overflow}}
	res, err := harness.Explore(ctx, cfg, rc.workload, b)
	if err != nil {
		fmt.Fprintf(w, "%s run: %v\n", rc.cli.name(), err)
		return 1
	}
	fmt.Fprintf(w, "  %s\n", res.Coverage())
	for _, p := range res.Done {
		fmt.Fprintf(w, "  pass %s exhausted: %d states, %d schedules, done at %v\n",
			passBound(p), p.States, p.Schedules, p.Elapsed.Round(time.Millisecond))
	}
	if ce := res.Counterexample; ce != nil {
		class := ce.Report.Classes()[0]
		fmt.Fprintf(w, "\ncounterexample with %d deviations: %d clients x %d acquisitions, %d trace lines:\n",
			res.Deviation, ce.Workload.Clients, ce.Workload.Acquisitions, len(ce.Report.Result.Trace))
		rc.writeFailure(w, rc.out, rc.recipe.Name+"-"+class, *ce)
		return 1
	}
	if context.Cause(ctx) == errInterrupted {
		return 130
	}
	return 0
}

// passBound words a pass's bound.
func passBound(p sim.PassResult) string {
	if p.Deviation >= 0 {
		return fmt.Sprintf("deviations <= %d", p.Deviation)
	}
	if p.Depth > 0 {
		return fmt.Sprintf("depth <= %d", p.Depth)
	}
	return "unbounded"
}
