package harnesstest_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/harnesstest"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/simcli"
)

// counter is a workload kind zksim does not have, written as a user
// would, with the public API only: clients increment a counter znode by
// read-modify-write, each a number of times, and the judge checks that
// no acknowledged increment was lost. The good one writes with the
// version it read (compare-and-set); blind, the planted bug, writes
// without it, so two clients that read the same value both succeed and
// one increment is lost.
type counter struct {
	clients, increments int
	blind               bool
}

const counterPath = "/counter"

func (w counter) Name() string {
	if w.blind {
		return "counter/blind"
	}
	return "counter"
}

func (w counter) Spec() string {
	return fmt.Sprintf("counter clients=%d increments=%d", w.clients, w.increments)
}

func (w counter) Parse(spec string) (harness.Subject, error) {
	p := w
	if _, err := fmt.Sscanf(spec, "counter clients=%d increments=%d", &p.clients, &p.increments); err != nil {
		return nil, fmt.Errorf("counter workload %q: %w", spec, err)
	}
	return p, nil
}

func (w counter) Shape() harness.Shape {
	return harness.Shape{Clients: w.clients, Each: w.increments, Unit: "increments"}
}

func (w counter) Resize(s harness.Shape) harness.Subject {
	w.clients, w.increments = s.Clients, s.Each
	return w
}

// Start creates the counter at 0 before the clients start.
func (w counter) Start(s *sim.Sim) ([]sim.Program, harness.Judge) {
	m := s.State().(*machine.Machine) // the whole Machine, as the module sets a run up
	info, _ := m.CreateSession(0, 10000)
	m.Do(info.ID, proto.Create{Path: counterPath, Data: []byte("0")})
	m.CloseSession(info.ID)
	run := &counterRun{s: s}
	programs := make([]sim.Program, w.clients)
	for i := range programs {
		programs[i] = func(ctx context.Context, c *sim.Client) error {
			for range w.increments {
				w.increment(ctx, c, run)
			}
			return nil
		}
	}
	return programs, run
}

// increment tries a few times to add one to the counter; an error is
// life under faults (a lost reply may hide a write that was made).
func (w counter) increment(ctx context.Context, c *sim.Client, run *counterRun) {
	for range 3 {
		data, st, err := c.Conn().Get(ctx, counterPath)
		if err != nil {
			continue
		}
		n, _ := strconv.Atoi(string(data))
		version := st.Version
		if w.blind {
			version = -1
		}
		if _, err := c.Conn().Set(ctx, counterPath, []byte(strconv.Itoa(n+1)), version); err == nil {
			run.acked++
			return
		}
	}
}

// counterRun judges a run: the counter never falls behind the
// increments acknowledged so far.
type counterRun struct {
	s     *sim.Sim
	acked int
}

func (r *counterRun) value() int {
	data, _, _ := r.s.State().Node(counterPath)
	n, _ := strconv.Atoi(string(data))
	return n
}

func (r *counterRun) Invariant(s *sim.Sim) *check.Violation {
	if v := r.value(); v < r.acked {
		return &check.Violation{Class: check.Invariant, Detail: fmt.Sprintf("the counter is %d after %d acknowledged increments", v, r.acked),
			Steps: checkers.Blame(s.Step())}
	}
	return nil
}

func (r *counterRun) Visible() int { return r.s.Step() }

func (r *counterRun) Report(res *sim.Result) *harness.Report {
	vs := res.Verdicts()
	harness.ExplainVerdicts(res, vs)
	if v := r.Invariant(r.s); v != nil {
		vs = append(vs, *v)
	}
	return &harness.Report{Result: res, Violations: vs}
}

// A workload kind defined outside zksim's packages runs through every
// entry point unchanged: the good counter passes the rapid check and the
// systematic search.
func TestSubject_UserKindPasses(t *testing.T) {
	harnesstest.Check(t, counter{clients: 3, increments: 2}, harnesstest.Options{})
	harnesstest.CheckExhaustive(t, counter{clients: 2, increments: 1}, harnesstest.Options{}, sim.Bounds{Deviations: 1})
}

// TestSubject_BlindChild runs the planted bug's check; run by
// TestSubject_UserKindFindsLostUpdate.
func TestSubject_BlindChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestSubject_UserKindFindsLostUpdate")
	}
	harnesstest.Check(t, counter{clients: 3, increments: 2, blind: true}, harnesstest.Options{ArtifactDir: os.Getenv(childEnv)})
}

// TestSubject_BlindExhaustiveChild is TestSubject_BlindChild for the
// systematic search.
func TestSubject_BlindExhaustiveChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestSubject_UserKindFindsLostUpdate")
	}
	harnesstest.CheckExhaustive(t, counter{clients: 3, increments: 1, blind: true}, harnesstest.Options{ArtifactDir: os.Getenv(childEnv)},
		sim.Bounds{Deviations: 2})
}

// The planted lost update is found by Check and by CheckExhaustive,
// shrunk to two clients of one increment, saved, and replayed by Replay
// to the same violation.
func TestSubject_UserKindFindsLostUpdate(t *testing.T) {
	for _, child := range []string{"TestSubject_BlindChild", "TestSubject_BlindExhaustiveChild"} {
		out := strings.ReplaceAll(runChild(t, child, t.TempDir()), "\n        ", "\n")
		if !strings.Contains(out, "invariant, shrunk to 2 clients x 1 increment, ") {
			t.Errorf("%s: not shrunk to 2 clients x 1 increment:\n%s", child, out)
		}
		for _, path := range replayPaths(t, out) {
			ft := &fakeTB{}
			ft.run(func() { harnesstest.Replay(ft, path, counter{blind: true}) })
			if ft.fatal != "" || !strings.Contains(ft.errors, "acknowledged increments") {
				t.Errorf("%s: replay of %s: fatal %q, errors %q", child, path, ft.fatal, ft.errors)
			}
		}
	}
}

// simcli takes the user's kind as it takes zksim's barriers: list names
// it, run finds the lost update and saves it, replay reproduces it.
func TestSubject_UserKindInTheCLI(t *testing.T) {
	cli := &simcli.CLI{Name: "mycheck", Subjects: []harness.Subject{counter{clients: 3, increments: 2, blind: true}}}
	var out, errb bytes.Buffer
	if code := cli.Run([]string{"list"}, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "\ncounter recipes (-recipe; -acquisitions counts each client's increments):\n  counter/blind") {
		t.Fatalf("list: exit %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	dir := t.TempDir()
	code := cli.Run([]string{"run", "-recipe", "counter/blind", "-schedules", "100", "-shrink-time", "2s", "-out", dir}, &out, &errb)
	m := regexp.MustCompile(`trace:\s+(\S+\.trace)`).FindStringSubmatch(out.String())
	if code != simcli.ExitViolation || m == nil || !strings.Contains(out.String(), "counter/blind, 3 clients x 2 increments") {
		t.Fatalf("run: exit %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := cli.Run([]string{"replay", m[1]}, &out, &errb); code != simcli.ExitViolation || !strings.Contains(out.String(), "acknowledged increments") {
		t.Errorf("replay: exit %d\n%s%s", code, out.String(), errb.String())
	}
}

// A Subject of your own runs as zksim's do: here the counters, 100
// seeded schedules each without faults.
func Example_subject() {
	for _, w := range []counter{{clients: 3, increments: 2}, {clients: 3, increments: 2, blind: true}} {
		lost := 0
		for seed := range uint64(100) {
			rep, err := harness.Run(sim.Config{Faults: sim.Faults{None: true}}, sim.NewSeeded(seed), w)
			if err == nil && !rep.OK() {
				lost++
			}
		}
		fmt.Printf("%s: %d of 100 schedules lost an increment\n", w.Name(), lost)
	}
	// Output:
	// counter: 0 of 100 schedules lost an increment
	// counter/blind: 100 of 100 schedules lost an increment
}
