package sim_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
)

// TestSim_Interaction runs the scheduler and the search on the small
// scenarios below from the files under testdata/interaction: the exact
// numbers of schedules, states, revisits and sleep-set skips of a search,
// the first counterexample's decisions and trace, a random walk's and
// PCT's schedule for a seed, and step-level schedules with the options
// offered at every step. A broken reduction (sleep sets, state
// fingerprints, symmetry) or a change of the default schedule changes
// these numbers (each was seen to: sleep sets off or unsound, no state
// cut, a cut that ignores depth, deviations used or sleep sets, symmetry
// off, timers or the ensemble left out of the fingerprint). With
// symmetry the default order follows the canonical permutation, which
// the fingerprint's hash values decide: a change of hashing alone
// changes those counts too. Regenerate with -rewrite, and read what
// changed.
func TestSim_Interaction(t *testing.T) {
	datadriven.Walk(t, "testdata/interaction", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			sc := scenarioOf(t, td)
			switch td.Cmd {
			case "explore":
				return explore(t, td, sc)
			case "replay":
				return runOnce(t, sc, boundsOf(t, td).RunConfig(configOf(td)), decisionsOf(td), false)
			case "random":
				return runOnce(t, sc, configOf(td), sim.NewSeeded(seedOf(t, td)), false)
			case "pct":
				cfg := configOf(td)
				cfg.PCT = true
				return runOnce(t, sc, cfg, sim.NewSeeded(seedOf(t, td)), false)
			case "step":
				return runOnce(t, sc, boundsOf(t, td).RunConfig(configOf(td)), decisionsOf(td), true)
			}
			t.Fatalf("unknown directive %q", td.Cmd)
			return ""
		})
	})
}

// counterScenario: each client reads /n and writes it back plus one. With
// cas the write is conditional on the version read, and a client whose
// write loses retries; without, two reads before two writes lose an
// update, which the verdict calls an invariant violation.
type counterScenario struct {
	clients int
	cas     bool
}

func (sc counterScenario) Start(s *sim.Sim) ([]sim.Program, sim.Judge) {
	setup(s, "/n", "0")
	ps := make([]sim.Program, sc.clients)
	for i := range ps {
		ps[i] = sc.increment
	}
	return ps, &counterJudge{s: s, want: sc.clients}
}

func (sc counterScenario) increment(ctx context.Context, c *sim.Client) error {
	for {
		data, st, err := c.Conn().Get(ctx, "/n")
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(string(data))
		if err != nil {
			return err
		}
		version := zkapi.AnyVersion
		if sc.cas {
			version = st.Version
		}
		_, err = c.Conn().Set(ctx, "/n", []byte(strconv.Itoa(n+1)), version)
		if !errors.Is(err, zkapi.ErrBadVersion) {
			return err
		}
	}
}

// setup creates path with data before the clients start, from a session
// that is then closed, as a test's fixture would.
func setup(s *sim.Sim, path, data string) {
	m := s.State().(*machine.Machine) // the whole Machine, as the module sets a run up
	info, err := m.CreateSession(0, 4000)
	if err != nil {
		panic(err)
	}
	if r := m.Do(info.ID, proto.Create{Path: path, Data: []byte(data)}); r.Err != nil {
		panic(r.Err)
	}
	m.CloseSession(info.ID)
}

type counterJudge struct {
	s    *sim.Sim
	want int
}

func (j *counterJudge) Invariant(*sim.Sim) *check.Violation { return nil }
func (j *counterJudge) Visible() int                        { return 0 }

// Verdict: every client ended well and /n counts every increment.
func (j *counterJudge) Verdict(res *sim.Result) []check.Class {
	for _, err := range res.Errors {
		if err != nil {
			return []check.Class{check.ClientError}
		}
	}
	data, _, _ := j.s.State().Node("/n")
	if string(data) != strconv.Itoa(j.want) {
		return []check.Class{check.Invariant}
	}
	return nil
}

// lockScenario: each client takes /lock by creating it ephemeral, waiting
// on an exists watch while another holds it, then deletes it. With racy,
// a client that sees /lock missing on its exists takes the lock without
// creating it: two clients can hold it at once.
type lockScenario struct {
	clients int
	racy    bool
}

func (sc lockScenario) Start(s *sim.Sim) ([]sim.Program, sim.Judge) {
	j := &lockJudge{}
	ps := make([]sim.Program, sc.clients)
	for i := range ps {
		ps[i] = func(ctx context.Context, c *sim.Client) error { return sc.hold(ctx, c, j) }
	}
	return ps, j
}

func (sc lockScenario) hold(ctx context.Context, c *sim.Client, j *lockJudge) error {
	created, err := sc.acquire(ctx, c.Conn())
	if err != nil {
		return err
	}
	j.enter()
	if err := c.Sleep(ctx, 1); err != nil {
		return err
	}
	j.exit()
	if !created {
		return nil
	}
	for {
		// A delete whose reply was lost may have been applied: NoNode
		// then says it was.
		err := c.Conn().Delete(ctx, "/lock", zkapi.AnyVersion)
		switch {
		case errors.Is(err, zkapi.ErrConnectionLoss):
		case errors.Is(err, zkapi.ErrNoNode):
			return nil
		default:
			return err
		}
	}
}

// acquire returns whether it created /lock (the racy path may not). It
// retries after a connection loss, as a naive recipe does: a create
// applied whose reply was lost leaves it waiting on its own node.
func (sc lockScenario) acquire(ctx context.Context, conn zkapi.Conn) (bool, error) {
	for {
		_, err := conn.Create(ctx, "/lock", nil, zkapi.Ephemeral)
		switch {
		case errors.Is(err, zkapi.ErrConnectionLoss):
			continue
		case !errors.Is(err, zkapi.ErrNodeExists):
			return true, err
		}
		_, ok, w, err := conn.ExistsW(ctx, "/lock")
		switch {
		case errors.Is(err, zkapi.ErrConnectionLoss):
		case err != nil:
			return false, err
		case !ok && sc.racy:
			return false, nil
		case ok:
			if _, err := w.Wait(ctx); err != nil {
				return false, err
			}
		}
	}
}

// lockJudge counts the clients in their critical sections; entries and
// exits are what it sees happen in order (Visible).
type lockJudge struct{ holders, changes int }

func (j *lockJudge) enter() { j.holders++; j.changes++ }
func (j *lockJudge) exit()  { j.holders--; j.changes++ }

func (j *lockJudge) Invariant(*sim.Sim) *check.Violation {
	if j.holders > 1 {
		return &check.Violation{Class: check.MutualExclusion, Detail: fmt.Sprintf("%d holders", j.holders)}
	}
	return nil
}

func (j *lockJudge) Visible() int { return j.changes }

func (j *lockJudge) Verdict(res *sim.Result) []check.Class {
	for _, err := range res.Errors {
		if err != nil {
			return []check.Class{check.ClientError}
		}
	}
	if res.Deadlock {
		return []check.Class{check.Deadlock}
	}
	return nil
}

// scenarioOf reads "scenario=counter|counter-cas|lock|lock-racy clients=N".
func scenarioOf(t *testing.T, td *datadriven.TestData) sim.Scenario {
	var name string
	td.ScanArgs(t, "scenario", &name)
	n := 2
	td.MaybeScanArgs(t, "clients", &n)
	switch name {
	case "counter":
		return counterScenario{clients: n}
	case "counter-cas":
		return counterScenario{clients: n, cas: true}
	case "lock":
		return lockScenario{clients: n}
	case "lock-racy":
		return lockScenario{clients: n, racy: true}
	}
	t.Fatalf("unknown scenario %q", name)
	return nil
}

// configOf reads the run's faults: "disconnect=N lose-reply=N ...".
func configOf(td *datadriven.TestData) sim.Config {
	var cfg sim.Config
	for _, a := range td.CmdArgs {
		n := 0
		if len(a.Vals) > 0 {
			n, _ = strconv.Atoi(a.Vals[0])
		}
		switch a.Key {
		case "lose-request":
			cfg.Faults.LoseRequest = n
		case "lose-reply":
			cfg.Faults.LoseReply = n
		case "disconnect":
			cfg.Faults.Disconnect = n
		case "crash":
			cfg.Faults.Crash = n
		case "percent":
			cfg.Faults.Percent = n
		}
	}
	return cfg
}

// boundsOf reads "deviations=N depth=N ticks=N noreduction symmetry
// nodeepening noearlyticks"; deviations default to -1 (no bound).
func boundsOf(t *testing.T, td *datadriven.TestData) sim.Bounds {
	b := sim.Bounds{Deviations: -1}
	td.MaybeScanArgs(t, "deviations", &b.Deviations)
	td.MaybeScanArgs(t, "depth", &b.Depth)
	td.MaybeScanArgs(t, "ticks", &b.Ticks)
	b.NoReduction = td.HasArg("noreduction")
	b.Symmetry = td.HasArg("symmetry")
	b.NoDeepening = td.HasArg("nodeepening")
	b.NoEarlyTicks = td.HasArg("noearlyticks")
	return b
}

func seedOf(t *testing.T, td *datadriven.TestData) uint64 {
	seed := 0
	td.MaybeScanArgs(t, "seed", &seed)
	return uint64(seed)
}

func decisionsOf(td *datadriven.TestData) sim.Chooser {
	var d []int
	if a, ok := td.Arg("decisions"); ok {
		for _, v := range a.Vals {
			n, _ := strconv.Atoi(v)
			d = append(d, n)
		}
	}
	return sim.Replay(d)
}

// explore prints what a search covered, in numbers that do not depend on
// the machine (no elapsed time), and its first counterexample.
func explore(t *testing.T, td *datadriven.TestData, sc sim.Scenario) string {
	res, err := sim.Explore(t.Context(), configOf(td), sc, boundsOf(t, td))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "schedules=%d states=%d visited=%d revisits=%d slept=%d\n",
		res.Schedules, res.States, res.Visited, res.Revisits, res.Slept)
	fmt.Fprintf(&b, "passes=%d depth=%d deviation=%d depthcuts=%d boundcuts=%d exhausted=%v complete=%v symmetric=%v\n",
		res.Passes, res.Depth, res.Deviation, res.DepthCuts, res.BoundCuts, res.Exhausted, res.Complete, res.Symmetric)
	for _, p := range res.Done {
		fmt.Fprintf(&b, "pass deviation=%d depth=%d states=%d schedules=%d\n", p.Deviation, p.Depth, p.States, p.Schedules)
	}
	if f := res.Failure; f != nil {
		fmt.Fprintf(&b, "failure %s decisions=%v\n", f.Class, f.Decisions)
	} else {
		b.WriteString("no failure\n")
	}
	return b.String()
}

// chooserFunc adapts a function to a sim.Chooser.
type chooserFunc func(n int, what string) int

func (f chooserFunc) Choose(n int, what string) int { return f(n, what) }

// choice is one Choose call of a run: its step, question and options.
type choice struct {
	step   int
	what   string
	n, got int
	opts   []sim.Event
}

// runOnce runs sc once under cfg and ch and prints its trace and verdict;
// with steps, each step's options and the one taken come before the
// step's trace lines.
func runOnce(t *testing.T, sc sim.Scenario, cfg sim.Config, ch sim.Chooser, steps bool) string {
	var s *sim.Sim
	var choices []choice
	rec := chooserFunc(func(n int, what string) int {
		i := ch.Choose(n, what)
		c := choice{step: s.Step(), what: what, n: n, got: i}
		if what == "event" && cfg.Flat {
			c.opts = sim.Options(s)
		}
		choices = append(choices, c)
		return i
	})
	var judge sim.Judge
	var broken string // the first step that broke the judge's invariant
	cfg.Observe = func(s *sim.Sim, step int, _ sim.Event) error {
		if v := judge.Invariant(s); v != nil && broken == "" {
			broken = fmt.Sprintf("invariant %s at step %d: %s\n", v.Class, step, v.Detail)
		}
		return nil
	}
	s, err := sim.New(cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	programs, judge := sc.Start(s)
	res := s.Run(programs...)
	var b strings.Builder
	for _, line := range res.Trace {
		if steps {
			choices = printChoices(&b, choices, traceStep(line))
		}
		b.WriteString(line + "\n")
	}
	b.WriteString(broken)
	fmt.Fprintf(&b, "steps=%d deadlock=%v verdict=%v\n", res.Steps, res.Deadlock, judge.Verdict(res))
	return b.String()
}

// printChoices prints the choices made before the trace line of step
// and returns those left.
func printChoices(b *strings.Builder, cs []choice, step int) []choice {
	for len(cs) > 0 && cs[0].step <= step {
		c := cs[0]
		if c.opts != nil {
			fmt.Fprintf(b, "  options %v -> %s\n", c.opts, c.opts[c.got])
		} else {
			fmt.Fprintf(b, "  %s: %d of %d\n", c.what, c.got, c.n)
		}
		cs = cs[1:]
	}
	return cs
}

// traceStep is the step number a trace line starts with, or -1.
func traceStep(line string) int {
	f := strings.Fields(line)
	if len(f) == 0 {
		return -1
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return -1
	}
	return n
}
