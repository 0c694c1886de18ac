package harnesstest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/zksim/zksim/barrier"
	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/sim"
)

// BarrierOptions configures CheckBarrier and CheckBarrierExhaustive.
type BarrierOptions struct {
	// Config bounds the runs as CheckOptions.Config does: the faults of
	// each kind at most (each check keeps some kinds and leaves the
	// others out), a follower drawn when Server.Followers is 0, and the
	// server's seed the check's when Server.Seed is 0.
	Config sim.Config
	// Workload bounds the workload (Recipe is set by the check): each
	// check of CheckBarrier runs 2 to Clients (default 3) clients of 1 to
	// Rounds (default 2) rounds, the single barrier instead in half the
	// checks if the recipe has one; the other fields are used as given.
	// CheckBarrierExhaustive runs it as given.
	Workload harness.BarrierWorkload
	// ArtifactDir receives the trace file and HTML report of a failure,
	// as CheckOptions.ArtifactDir.
	ArtifactDir string
}

// CheckBarrier checks a barrier recipe with the barrier workload
// (harness.BarrierWorkload) under faulted schedules: entry and exit
// safety, the single barrier's, herd, nodes left behind and liveness.
// rapid draws each check's shape, fault kinds, strategy (random walk or
// PCT) and seed within opts' bounds (-rapid.checks checks, default 100),
// and each check runs 10 schedules from consecutive seeds. The first
// failing schedule is shrunk to its fewest decisions and reported with
// its violations, the end of its trace, and the decision list that
// replays it through harness.RunBarrier; it is saved as a trace file and
// an HTML report, as CheckRecipe's are, which ReplayBarrierFile replays.
func CheckBarrier(t *testing.T, recipe barrier.Recipe, opts BarrierOptions) {
	t.Helper()
	if err := harness.ValidateBarrier(opts.Config, recipe, opts.Workload); err != nil {
		t.Fatal(err) // before rapid starts: a bad option is not a check that failed
	}
	if fail, schedules := findBarrier(t, recipe, opts); fail != nil {
		t.Fatal(fail.report(recipe.Name, schedules, opts.artifacts(t)))
	}
}

// artifacts is where a failure of t's check is saved, and its files' names.
func (opts BarrierOptions) artifacts(t *testing.T) artifacts {
	return artifacts{dir: opts.ArtifactDir, name: t.Name()}
}

// artifacts says where a failure's trace file and HTML report go: into
// dir (default: os.TempDir()/zksim), named after name and the class.
type artifacts struct{ dir, name string }

// findBarrier runs CheckBarrier's checks until a schedule fails, and
// returns it (nil if none did) and the number of schedules run.
func findBarrier(tb rapid.TB, recipe barrier.Recipe, opts BarrierOptions) (fail *barrierFailure, schedules int) {
	tb.Helper()
	rapid.Check(tb, func(rt *rapid.T) {
		if fail != nil {
			return
		}
		w := drawBarrierWorkload(rt, recipe, opts.Workload)
		c := drawConfig(rt, harness.Workload{Clients: w.Clients}, opts.Config)
		c.config.PCT = rapid.Bool().Draw(rt, "pct")
		c.config.NoTrace = true
		for i := range uint64(schedulesPerCheck) {
			schedules++
			rec := &sim.Recorder{C: sim.NewSeeded(c.seed + i)}
			rep, err := harness.RunBarrier(c.config, rec, w)
			if err != nil {
				rt.Fatal(err)
			}
			if !rep.OK() {
				fail = &barrierFailure{w: w, cfg: c.config, seed: c.seed + i, decisions: rec.Decisions, class: check.Worst(rep.Classes())}
				return
			}
		}
	})
	return fail, schedules
}

// CheckBarrierExhaustive explores every schedule of recipe's barrier
// workload within b (see sim.Explore): opts.Workload is run as given
// (default 3 clients x 2 rounds: keep it small, 2 or 3 clients x 1),
// under opts.Config's fault budgets. It fails t with the first
// counterexample (with deepening, one with the fewest deviations),
// reported like CheckBarrier's, and logs what it covered.
func CheckBarrierExhaustive(t *testing.T, recipe barrier.Recipe, opts BarrierOptions, b sim.Bounds) *sim.Exploration {
	t.Helper()
	w := opts.Workload
	w.Recipe = recipe
	res, err := sim.Explore(t.Context(), opts.Config, w, b)
	if err != nil {
		t.Fatal(err)
	}
	if f := res.Failure; f != nil {
		fail := barrierFailure{w: w, cfg: b.RunConfig(opts.Config), decisions: f.Decisions, class: f.Class, shrunk: true}
		t.Fatalf("%s: systematic search: %s\n\n%s", recipe.Name, res.Coverage(), fail.report(recipe.Name, res.Schedules, opts.artifacts(t)))
	}
	t.Logf("%s: systematic search: %s", recipe.Name, res.Coverage())
	return res
}

// drawBarrierWorkload draws a check's workload within w's bounds.
func drawBarrierWorkload(rt *rapid.T, recipe barrier.Recipe, w harness.BarrierWorkload) harness.BarrierWorkload {
	w.Recipe = recipe
	w.Clients = rapid.IntRange(2, max(2, cmp.Or(w.Clients, 3))).Draw(rt, "clients")
	w.Rounds = rapid.IntRange(1, cmp.Or(w.Rounds, 2)).Draw(rt, "rounds")
	w.Single = recipe.Single != nil && rapid.Bool().Draw(rt, "single")
	return w
}

// barrierFailure is a failing schedule of the barrier workload.
type barrierFailure struct {
	w         harness.BarrierWorkload
	cfg       sim.Config
	seed      uint64
	decisions []int
	class     check.Class
	shrunk    bool // the decisions are already a search's shortest
}

// shrinkBudget bounds the runs that shrinking a failure may take.
const shrinkBudget = 400

// report shrinks the failure (fewest decisions that still show its
// class), runs it again traced, words it, and saves it in to.
func (f barrierFailure) report(name string, schedules int, to artifacts) string {
	shows := func(d []int) bool {
		rep, err := harness.RunBarrier(f.cfg, &sim.Decisions{List: d}, f.w)
		return err == nil && slices.Contains(rep.Classes(), f.class)
	}
	d := f.decisions
	if !f.shrunk {
		d = sim.Shrink(d, shows, shrinkBudget)
	}
	cfg := f.cfg
	cfg.NoTrace = false
	rep, err := f.w.Check(cfg, &sim.Decisions{List: d})
	var b strings.Builder
	what := fmt.Sprintf("%d clients x %d rounds", f.w.Clients, f.w.Rounds)
	if f.w.Single {
		what = fmt.Sprintf("single barrier, %d clients", f.w.Clients)
	}
	fmt.Fprintf(&b, "%s: %s after %d schedules (%s, seed %d, %s, server seed %d, faults %s, pct %v), shrunk to %d decisions:\n",
		name, f.class, schedules, what, f.seed, plural(f.cfg.Server.Followers, "follower"), f.cfg.Server.Seed,
		faultList(f.cfg.Faults), f.cfg.PCT, len(d))
	if err != nil {
		fmt.Fprintf(&b, "  running it again: %v\n", err)
		return b.String()
	}
	for _, v := range rep.Violations {
		fmt.Fprintf(&b, "  %v\n", v)
	}
	writeExcerpt(&b, rep.Result.Trace, rep.Violations)
	fmt.Fprintf(&b, "replay: harness.RunBarrier(cfg, &sim.Decisions{List: []int{%s}}, w)\n", strings.Trim(fmt.Sprint(d), "[]"))
	ce := harness.Counterexample{Subject: f.w, Config: cfg, Decisions: d, Report: rep, Seed: f.seed}
	harness.SaveCounterexample(&b, artifactDir(to.dir), to.name+"-"+name+"-"+string(f.class), ce, false,
		func(p string) string { return fmt.Sprintf("harnesstest.ReplayBarrierFile(t, %q, recipe)", p) })
	return b.String()
}
