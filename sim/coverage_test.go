package sim_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// lockProgram acquires and releases a lock twice, each acquisition with
// a deadline of 3 ticks, holding it for 2 ticks.
func lockProgram(ctx context.Context, c *sim.Client) error {
	m, err := lock.New(c.Conn(), "/locks/x", lock.Options{ID: c.Name()})
	if err != nil {
		return err
	}
	for range 2 {
		actx, cancel := c.WithTimeout(ctx, 3)
		l, err := m.Acquire(actx)
		cancel()
		if err != nil {
			continue // a deadline, a lost session: the next round tries again
		}
		c.Sleep(ctx, 2)
		_ = l.Release(ctx)
	}
	return nil
}

var everyFault = sim.Faults{Percent: 10, LoseRequest: 2, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}

func runLocks(t *testing.T, seed uint64, f sim.Faults, traced bool) *sim.Result {
	t.Helper()
	res, err := sim.Run(sim.Config{Faults: f, NoTrace: !traced}, sim.NewSeeded(seed), lockProgram, lockProgram, lockProgram)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// traceOps maps a request's first word in a trace line to its activity.
var traceOps = map[string]sim.Activity{"create": sim.OnCreate, "delete": sim.OnDelete, "exists": sim.OnExists,
	"get": sim.OnGetData, "set": sim.OnSetData, "children": sim.OnGetChildren, "multi": sim.OnMulti, "sync": sim.OnSync}

// fromTrace counts, from a trace's lines, what Coverage counts: requests
// and lost requests and replies by kind, notifications by type, and the
// client faults and session events that have lines of their own.
type fromTrace struct {
	did, loseRequest, loseReply map[sim.Activity]int
	notified                    map[string]int
	lines                       map[string]int // by the line's first word
	reconnected                 int
}

func countTrace(trace []string) fromTrace {
	ft := fromTrace{did: map[sim.Activity]int{}, loseRequest: map[sim.Activity]int{}, loseReply: map[sim.Activity]int{},
		notified: map[string]int{}, lines: map[string]int{}}
	for _, line := range trace {
		w := strings.Fields(line)[2:] // past the step and the time
		ft.lines[w[0]]++
		switch w[0] {
		case "send", "lose-request", "lose-reply":
			op := traceOps[w[2]]
			ft.did[op]++
			if w[0] == "lose-request" {
				ft.loseRequest[op]++
			} else if w[0] == "lose-reply" {
				ft.loseReply[op]++
			}
		case "recv":
			if w[2] != "reply" {
				ft.notified[w[2]]++
			}
		case "reconnect":
			if !strings.HasSuffix(line, "expired") {
				ft.reconnected++
			}
		}
	}
	return ft
}

func rowSum(cov *sim.Coverage, k sim.Kind) int {
	n := 0
	for a := sim.OnCreate; a <= sim.Idle; a++ {
		n += cov.Fault(k, a)
	}
	return n
}

// The collector counts what the trace of the same run shows.
func TestCoverage_MatchesTrace(t *testing.T) {
	var total sim.Coverage
	for seed := range uint64(40) {
		res := runLocks(t, seed, everyFault, true)
		cov := &res.Coverage
		total.Add(cov)
		ft := countTrace(res.Trace)
		for op := sim.OnCreate; op <= sim.OnSync; op++ {
			if cov.Did(op) != ft.did[op] || cov.Fault(sim.LoseRequest, op) != ft.loseRequest[op] || cov.Fault(sim.LoseReply, op) != ft.loseReply[op] {
				t.Fatalf("seed %d, %s: coverage sent %d, lost %d requests and %d replies; the trace %d, %d, %d\n%s", seed, op,
					cov.Did(op), cov.Fault(sim.LoseRequest, op), cov.Fault(sim.LoseReply, op),
					ft.did[op], ft.loseRequest[op], ft.loseReply[op], sim.TraceString(res.Trace))
			}
		}
		for _, typ := range []zkapi.EventType{zkapi.EventNodeCreated, zkapi.EventNodeDeleted, zkapi.EventNodeDataChanged, zkapi.EventNodeChildrenChanged} {
			if cov.Notified(typ) != ft.notified[typ.String()] {
				t.Fatalf("seed %d: %d %s notifications counted, %d in the trace", seed, cov.Notified(typ), typ, ft.notified[typ.String()])
			}
		}
		for _, k := range []sim.Kind{sim.Disconnect, sim.Crash, sim.Pause, sim.Abandon} {
			if rowSum(cov, k) != ft.lines[k.String()] {
				t.Fatalf("seed %d: %d %s counted, %d in the trace", seed, rowSum(cov, k), k, ft.lines[k.String()])
			}
		}
		if n, _ := cov.Session(sim.SessionReconnected); n != ft.reconnected {
			t.Fatalf("seed %d: %d reconnects counted, %d in the trace", seed, n, ft.reconnected)
		}
		if reaps, _ := cov.Reaped(); reaps != ft.lines["reap"] {
			t.Fatalf("seed %d: %d reaps counted, %d in the trace", seed, reaps, ft.lines["reap"])
		}
	}
	// The seeds meet each fault on the lock's create and its waits.
	for _, k := range []sim.Kind{sim.LoseRequest, sim.LoseReply, sim.Disconnect} {
		if total.Fault(k, sim.OnCreate) == 0 {
			t.Errorf("no %s on a create in 40 runs:\n%s", k, total.String())
		}
	}
	if total.Deadline(sim.InWatch) == 0 {
		t.Errorf("no deadline fired in a watch's wait in 40 runs:\n%s", total.String())
	}
}

// A run without faults lists every legal fault kind as never having
// happened.
func TestCoverage_NoFaultsNeverAll(t *testing.T) {
	res := runLocks(t, 1, sim.Faults{}, false)
	never := res.Coverage.Never()
	for _, k := range simhook.FaultKinds() {
		if !k.Illegal && !slices.Contains(never, k.Name) {
			t.Errorf("%s not in never: %q", k.Name, never)
		}
	}
	for _, want := range []string{"disconnected", "expired", "crashed", "expired by the server"} {
		if !slices.Contains(never, want) {
			t.Errorf("%s not in never: %q", want, never)
		}
	}
	if n, clients := res.Coverage.Session(sim.SessionOpened); n != 3 || clients != 3 {
		t.Errorf("sessions opened: %d by %d clients, want 3 by 3", n, clients)
	}
}

// Never names the recipe's request kinds a fault never landed on, and
// not the kinds the recipe never sent.
func TestCoverage_NeverOnUnlandedRequest(t *testing.T) {
	res := runLocks(t, 3, sim.Faults{Percent: 100, LoseReply: 1}, false)
	cov := &res.Coverage
	var landed sim.Activity
	for a := sim.OnCreate; a < sim.Idle; a++ {
		if cov.Fault(sim.LoseReply, a) > 0 {
			landed = a
		}
	}
	never := cov.Never()
	if slices.Contains(never, "lose-reply on "+landed.String()) || slices.Contains(never, "lose-reply") {
		t.Fatalf("lose-reply landed on %s, never says %q", landed, never)
	}
	if cov.Did(sim.OnDelete) == 0 || landed == sim.OnDelete || !slices.Contains(never, "lose-reply on delete") {
		t.Fatalf("never does not name lose-reply on delete: %q\n%s", never, cov.String())
	}
	if cov.Did(sim.OnSetData) != 0 || slices.Contains(never, "lose-reply on setData") {
		t.Fatalf("never names a request the recipe did not send: %q", never)
	}
}

// Coverage adds up: runs and counts are sums, and a search's is the sum
// over every run it made.
func TestCoverage_AddSums(t *testing.T) {
	a, b := runLocks(t, 5, everyFault, false).Coverage, runLocks(t, 6, everyFault, false).Coverage
	var sum sim.Coverage
	sum.Add(&a)
	sum.Add(&b)
	if sum.Runs() != 2 {
		t.Fatalf("runs %d, want 2", sum.Runs())
	}
	for k := sim.LoseRequest; k <= sim.Abandon; k++ {
		for op := sim.OnCreate; op <= sim.Idle; op++ {
			if sum.Fault(k, op) != a.Fault(k, op)+b.Fault(k, op) {
				t.Fatalf("%s on %s: %d, want %d+%d", k, op, sum.Fault(k, op), a.Fault(k, op), b.Fault(k, op))
			}
		}
	}
	da, _ := a.Session(sim.SessionDisconnected)
	db, _ := b.Session(sim.SessionDisconnected)
	if ds, _ := sum.Session(sim.SessionDisconnected); ds != da+db {
		t.Fatalf("disconnected %d, want %d+%d", ds, da, db)
	}
}

func TestCoverage_ExploreSumsRuns(t *testing.T) {
	res, err := sim.Explore(context.Background(), sim.Config{Faults: sim.Faults{LoseReply: 1}},
		programs{lockProgram, lockProgram}, sim.Bounds{Deviations: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Exercised.Runs() != res.Schedules || res.Exercised.Fault(sim.LoseReply, sim.OnCreate) == 0 {
		t.Fatalf("search of %d schedules exercised:\n%s", res.Schedules, res.Exercised.String())
	}
}

// programs runs the same programs in every schedule and judges nothing.
type programs []sim.Program

func (p programs) Start(*sim.Sim) ([]sim.Program, sim.Judge) { return p, nopJudge{} }

type nopJudge struct{}

func (nopJudge) Invariant(*sim.Sim) *check.Violation { return nil }
func (nopJudge) Visible() int                        { return 0 }
func (nopJudge) Verdict(*sim.Result) []check.Class   { return nil }

// The JSON form is stable (golden) and reads back to the same counts.
func TestCoverage_JSONGolden(t *testing.T) {
	cov := runLocks(t, 7, everyFault, false).Coverage
	got, err := json.MarshalIndent(cov, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	const golden = "testdata/coverage.golden.json"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("coverage JSON changed (go test -run TestCoverage_JSONGolden -update to accept):\n%s", got)
	}
	var back sim.Coverage
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if back != cov {
		t.Fatalf("read back:\n%s\nwrote:\n%s", back.String(), cov.String())
	}
	if err := json.Unmarshal([]byte(`{"faults":{"lose-everything":{"create":1}}}`), &back); err == nil {
		t.Fatal("an unknown fault kind read back")
	}
}
