package simcli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/sim"
)

// exhaust runs the systematic search and reports what it covered; on a
// counterexample it saves and prints it. Exit codes: 0 no violation (the
// report says whether the bounds were exhausted), 1 violation, 130
// stopped by Ctrl-C before any violation. Errors go to stderr.
func (rc runConfig) exhaust(ctx context.Context, w, stderr io.Writer) int {
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
	if rc.verbosity >= 0 {
		fmt.Fprintf(w, "%s run: %s%s, %s\n", rc.cli.name(), rc.describe(), shard, workers)
		fmt.Fprintf(w, "checked: %s\n\n", rc.checks())
	}
	cfg := sim.Config{Faults: rc.simFaults, Server: fakezk.Config{Followers: rc.followers, Overflow: rc.overflow}}
	start := time.Now()
	res, err := harness.Explore(ctx, cfg, rc.subject, b)
	if err != nil {
		fmt.Fprintf(stderr, "%s run: %v\n", rc.cli.name(), err)
		return ExitCouldNotRun
	}
	fmt.Fprintf(w, "  %s\n", res.Coverage())
	for _, p := range res.Done {
		fmt.Fprintf(w, "  pass %s exhausted: %d states, %d schedules, done at %v\n",
			passBound(p), p.States, p.Schedules, p.Elapsed.Round(time.Millisecond))
	}
	if rc.verbosity >= 0 {
		writeExercised(w, &res.Exercised)
	}
	code, s := ExitOK, rc.exhaustSummary(res)
	if ce := res.Counterexample; ce != nil {
		class := ce.Report.Classes()[0]
		fmt.Fprintf(w, "\ncounterexample with %d deviations: %s, %d trace lines:\n",
			res.Deviation, ce.Subject.Shape(), len(ce.Report.Result.Trace))
		path := rc.writeFailure(w, rc.out, failureName(rc.subject.Name(), class, rc.plan.seed, *ce), *ce)
		rc.ci.counterexample(rc, rc.plan.seed, nil, ce, path)
		classes := worstFirst(ce.Report.Violations)
		s.First = &firstFailure{Seed: rc.plan.seed, Classes: classes, Trace: path, Message: firstMessage(ce.Report.Violations, classes[0])}
		s.Failing, s.Classes = 1, map[check.Class]int{s.First.Classes[0]: 1}
		code = ExitViolation
	} else if context.Cause(ctx) == errInterrupted {
		code = ExitInterrupted
	}
	if !res.Exhausted && ctx.Err() != nil {
		s.Stopped = context.Cause(ctx).Error()
	}
	s.Exit = code
	if err := rc.ci.finish(rc, s, res.Exhausted, time.Since(start)); err != nil {
		fmt.Fprintf(stderr, "%s run: -junit: %v\n", rc.cli.name(), err)
		return lostOutput(code)
	}
	return code
}

// exhaustSummary is a systematic search's verdict in the -summary shape,
// for -json and -junit: schedules are the runs it made.
func (rc runConfig) exhaustSummary(res *harness.Exploration) summary {
	return summary{Run: rc.describe(), Seed: rc.plan.seed, Shard: rc.plan.shard, Shards: rc.plan.shards,
		Schedules: res.Schedules, Seeds: fmt.Sprintf("seed %d", rc.plan.seed), Classes: map[check.Class]int{},
		Coverage: &coverage{Deviations: res.Deviation, Depth: res.Depth, Passes: res.Passes, States: res.States,
			Visited: res.Visited, Complete: res.Complete}, Exercised: &res.Exercised}
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
