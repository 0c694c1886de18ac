package harness_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// The same seed gives the same trace, byte for byte; another seed another.
func TestRun_SameSeedSameTrace(t *testing.T) {
	run := func(seed uint64) string {
		rep, err := harness.Run(sim.Config{Faults: allFaults}, sim.NewSeeded(seed), harness.Lock(zoo.Mutex(), harness.Workload{}))
		if err != nil {
			t.Fatal(err)
		}
		return sim.TraceString(rep.Result.Trace)
	}
	a, b, c := run(42), run(42), run(43)
	if a != b {
		t.Fatalf("seed 42 gave two traces; first difference near:\n%s", diffLine(a, b))
	}
	if a == c {
		t.Fatal("seeds 42 and 43 gave the same trace")
	}
}

func diffLine(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return la[i] + "\n" + lb[i]
		}
	}
	return "(lengths differ)"
}

// A recorded run saves to text, parses back and replays byte for byte.
func TestTraceFile_RoundTripAndReplay(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  sim.Config
		w    harness.Subject
	}{
		{"random-walk", sim.Config{Faults: allFaults}, harness.Lock(zoo.Mutex(), harness.Workload{TimeoutTicks: 20})},
		// Every setting that shapes a run is in the file: PCT's, and a
		// sequence counter started near the limit.
		{"pct", sim.Config{Faults: allFaults, PCT: true, PCTDepth: 4, PCTHorizon: 300},
			harness.Lock(zoo.Mutex(), harness.Workload{SequenceStart: 2147483640})},
		// A follower to reconnect to.
		{"reconnect-next", sim.Config{Faults: allFaults, Server: fakezkFollowers(1)}, harness.Lock(zoo.Mutex(), harness.Workload{})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var recorded []int
			rec := sim.Record(sim.NewSeeded(5), &recorded)
			rep, err := harness.Run(tc.cfg, rec, tc.w)
			if err != nil {
				t.Fatal(err)
			}
			f := harness.TraceFile{Recipe: "lock", Workload: tc.w.Spec(), Config: tc.cfg, Decisions: recorded, Trace: rep.Result.Trace}
			parsed, err := harness.ParseTraceFile(f.String())
			if err != nil {
				t.Fatal(err)
			}
			if parsed.String() != f.String() {
				t.Fatalf("text form does not round-trip:\n%s\nvs\n%s", parsed.String(), f.String())
			}
			if _, err := harness.Replay(parsed, harness.Lock(zoo.Mutex(), harness.Workload{})); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestParseTraceFile_Errors(t *testing.T) {
	good := harness.TraceFile{Recipe: "lock", Workload: harness.Lock(zoo.Mutex(), harness.Workload{}).Spec(), Decisions: []int{1, 2}}.String()
	for _, tc := range []struct{ text, want string }{
		{"", "line 1"},
		{"zksim-trace v2\n", "unsupported version"},
		{strings.Replace(good, "recipe lock", "recipe", 1), "line 2"},
		{strings.Replace(good, "overflow=pin", "overflow=up", 1), "line 4: overflow"},
		{strings.Replace(good, "reconnect=next", "reconnect=back", 1), "line 4: reconnect"},
		{strings.Replace(good, "decisions 1 2", "decisions 1 -2", 1), "bad decision"},
		{strings.Replace(good, "faults percent=0", "faults bogus=1", 1), "unknown field"},
		{good[:strings.Index(good, "decisions")], "missing \"decisions\""},
	} {
		_, err := harness.ParseTraceFile(tc.text)
		if !errors.Is(err, harness.ErrTrace) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parse of a bad file: %v, want %q", err, tc.want)
		}
	}
	// The workload line is the Subject's to read, when it replays.
	bad, err := harness.ParseTraceFile(strings.Replace(good, "clients=5", "clients=x", 1))
	if err == nil {
		_, err = harness.Replay(bad, harness.Lock(zoo.Mutex(), harness.Workload{}))
	}
	if !errors.Is(err, harness.ErrTrace) || !strings.Contains(err.Error(), "clients: not a count") {
		t.Errorf("replay of a bad workload line: %v", err)
	}
}

// A new run's file says reconnect=next; a file written before the key
// existed was recorded under the legacy reconnect policy, which zksim no
// longer has, and is refused with an error that says so and what to do,
// not replayed into another run.
func TestTraceFile_RefusesLegacyReconnect(t *testing.T) {
	next := harness.TraceFile{Recipe: "lock"}.String()
	if !strings.Contains(next, " reconnect=next\n") {
		t.Fatalf("a new run's file has no reconnect=next:\n%s", next)
	}
	if _, err := harness.ParseTraceFile(next); err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(next, " reconnect=next", "", 1)
	_, err := harness.ParseTraceFile(old)
	if !errors.Is(err, harness.ErrTrace) {
		t.Fatalf("a file without the key: %v, want ErrTrace", err)
	}
	for _, want := range []string{"line 4", "legacy reconnect policy", "a6cb805", "re-run the search"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
