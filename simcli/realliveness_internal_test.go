package simcli

import (
	"bytes"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/history"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/nemesis"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zoo"
)

// testBounds: settle 1 s, no progress for 2 s. The hand-built histories
// below are in seconds.
var testBounds = liveBounds{settle: time.Second, span: 2 * time.Second}

const sec = int64(time.Second)

// mark is one workload mark of a hand-built history, at second at.
func mark(at float64, client int, k history.Kind) history.Entry {
	return history.Entry{At: int64(at * float64(sec)), Client: client, Kind: k}
}

// waitOn is client's Wait on the watch on path, at second at.
func waitOn(at float64, client int, path string) history.Entry {
	e := mark(at, client, history.Wait)
	e.Path = path
	return e
}

// Two clients wait from second 1 to the end at 10, nobody holds, no
// fault: the node they watch, which no create's reply named, blocks
// them; a deadlock, worded with who waited, since when, on what.
func TestNoProgress_Deadlock(t *testing.T) {
	in := liveInput{dir: "/l", left: []string{"x-0000000000", "x-0000000001"}, end: 10 * sec, entries: []history.Entry{
		mark(0.5, 0, history.Acquire), mark(0.6, 0, history.Held), mark(0.7, 0, history.Release), mark(0.8, 0, history.Released),
		mark(1, 0, history.Acquire), waitOn(1.1, 0, "/l/x-0000000000"),
		mark(1.2, 1, history.Acquire), waitOn(1.3, 1, "/l/x-0000000001"),
	}}
	vs := noProgress(in, testBounds)
	if len(vs) != 1 || vs[0].Class != check.Deadlock {
		t.Fatalf("got %v, want one deadlock", vs)
	}
	for _, want := range []string{"from +1.000s to +10.000s", "c1 waited (since +1.000s) for the watch on /l/x-0000000000",
		"c2 waited (since +1.200s) for the watch on /l/x-0000000001"} {
		if !strings.Contains(vs[0].Detail, want) {
			t.Errorf("detail %q lacks %q", vs[0].Detail, want)
		}
	}
	if !strings.Contains(vs[0].Cause, "/l/x-0000000000 blocked them, a node no create's reply named") {
		t.Errorf("cause %q does not name the orphan", vs[0].Cause)
	}
}

// A normal handover, a long wait while another client holds, and an
// acquire timeout retried while the holder holds: progress throughout.
func TestNoProgress_HandoverAndLongHold(t *testing.T) {
	in := liveInput{dir: "/l", end: 20 * sec, entries: []history.Entry{
		mark(0, 0, history.Acquire), mark(0.1, 0, history.Held),
		mark(0.2, 1, history.Acquire), waitOn(0.3, 1, "/l/x-0"),
		mark(8, 1, history.GaveUp), mark(8, 1, history.Acquire), waitOn(8.1, 1, "/l/x-0"),
		mark(15, 0, history.Release), mark(15.1, 0, history.Released),
		mark(15.2, 1, history.Held), mark(15.3, 1, history.Release), mark(15.4, 1, history.Released),
	}}
	if vs := noProgress(in, testBounds); len(vs) != 0 {
		t.Fatalf("got %v, want none", vs)
	}
}

// A client waits 6 s across a member's kill (seconds 1 to 4) that
// freed the lock only once it had settled: no verdict. Without the
// fault, the same wait is a deadlock.
func TestNoProgress_WaitAcrossMemberKill(t *testing.T) {
	in := liveInput{dir: "/l", end: 10 * sec, entries: []history.Entry{
		mark(0.5, 0, history.Acquire), waitOn(0.6, 0, "/l/x-0"),
		mark(6.5, 0, history.Held), mark(6.6, 0, history.Release), mark(6.7, 0, history.Released),
	}}
	in.faults = []window{{1 * sec, 4 * sec}}
	if vs := noProgress(in, testBounds); len(vs) != 0 {
		t.Fatalf("got %v, want none", vs)
	}
	in.faults = nil
	if vs := noProgress(in, testBounds); len(vs) != 1 || vs[0].Class != check.Deadlock {
		t.Fatalf("without the fault: got %v, want a deadlock", vs)
	}
}

// A member fault's window lasts from its stop to its return; a paused
// client's for its stall; an instant fault's only at its moment.
func TestFaultWindows_Pairs(t *testing.T) {
	ins := []nemesis.Injection{
		{At: time.Second, Kind: nemesis.KillMember, Client: -1, Member: 2, What: "killed (SIGKILL) for 2s"},
		{At: 3 * time.Second, Kind: nemesis.KillMember, Client: -1, Member: 2, What: "restarted", End: true},
		{At: 3500 * time.Millisecond, Kind: nemesis.KillMember, Client: -1, Member: 2, What: "serving again: all 3 members serve, 500ms after", End: true},
		{At: 4 * time.Second, Kind: "pause", Client: 0, Member: -1, What: "traffic held both ways"},
		{At: 5 * time.Second, Kind: "lose-reply", Client: 1, Member: -1, What: "applied; its reply lost"},
	}
	got := faultWindows(ins, 100)
	want := []window{{100 + sec, 100 + 3*sec + sec/2}, {100 + 4*sec, 100 + 4*sec + int64(2*realSessionTimeout)}, {100 + 5*sec, 100 + 5*sec}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("window %d: got %v, want %v", i, got[i], want[i])
		}
	}
}

// runLiveness runs recipe on a fake server under faults with short
// liveness bounds (the fake's lose-reply cuts a connection, not a
// session, so the bounds need not wait for expiry).
func runLiveness(t *testing.T, rec recipe.Lock, args ...string) (int, string) {
	t.Helper()
	saved := realLiveBounds
	realLiveBounds = liveBounds{settle: 300 * time.Millisecond, span: time.Second}
	t.Cleanup(func() { realLiveBounds = saved })
	_, addr := zktest.ServeFake(t, netserver.Config{Machine: machine.Config{TickMillis: 100}})
	c := &CLI{Name: "zksim", Recipes: []recipe.Lock{rec}}
	// The address twice: go-zookeeper reconnects to the next server at
	// once, but waits a second before it tries its list again.
	rc, code := c.parseRun(append([]string{"-servers", addr + "," + addr, "-recipe", rec.Name}, args...), io.Discard)
	if code >= 0 {
		t.Fatalf("parse: exit %d", code)
	}
	var out bytes.Buffer
	code = (&realRun{rc: rc}).run(t.Context(), &out, &out)
	return code, out.String()
}

// lostCreate reports whether a real run's report lists a lost reply of
// a create: what zoo/noguidretry needs to go wrong. Which request a
// fault strikes depends on the run's interleaving, not only the seed.
func lostCreate(out string) bool { return LostCreateReply.MatchString(out) }

// LostCreateReply matches a report line of a create whose reply the
// nemesis lost; the black-box tests use it too.
var LostCreateReply = regexp.MustCompile(`lose-reply +client \d+: request \d+ \(create\) .* applied; its reply lost`)

// The lost create retried without a GUID leaves an orphan at the head
// of the queue: on a real server, as in the simulator, a deadlock. The
// seeds are tried until a create's reply is lost.
func TestRealRun_NoGUIDRetryDeadlocks(t *testing.T) {
	var rec recipe.Lock
	for _, ex := range zoo.Locks() {
		if ex.Name == zoo.NameNoGUIDRetry {
			rec = ex.Recipe
		}
	}
	for seed := 1; seed <= 30; seed++ {
		code, out := runLiveness(t, rec, "-clients", "2", "-acquisitions", "4", "-seed", strconv.Itoa(seed), "-faults", "lose-reply=2", "-time", "2s")
		if !lostCreate(out) {
			continue
		}
		if code != ExitViolation || !strings.Contains(out, "deadlock: nothing moved") || !strings.Contains(out, "an orphan") {
			t.Fatalf("seed %d: exit %d, want a deadlock on the orphan\n%s", seed, code, out)
		}
		return
	}
	t.Fatal("no seed lost a create's reply")
}

// The good lock under lost replies makes progress throughout, a lost
// create's reply included (its GUID finds the node again).
func TestRealRun_LockLive(t *testing.T) {
	creates := 0
	for seed := 1; seed <= 30 && creates == 0; seed++ {
		code, out := runLiveness(t, zoo.Mutex(), "-clients", "2", "-acquisitions", "4", "-seed", strconv.Itoa(seed), "-faults", "lose-reply=2", "-time", "2s")
		if code != ExitOK || strings.Contains(out, "deadlock: ") {
			t.Fatalf("seed %d: exit %d, want no deadlock\n%s", seed, code, out)
		}
		if lostCreate(out) {
			creates++
		}
	}
	if creates == 0 {
		t.Fatal("no seed lost a create's reply")
	}
}

// The exhibits whose bugs need neither faults nor timing are found on
// a server over TCP with the simulator's class: an election's leaders
// sharing a term (the term checks on real histories), a semaphore
// whose holders overlap three ways once holds last (-hold), and a
// queue ordered by holder id.
func TestRealRun_ExhibitClasses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		class check.Class
	}{
		{zoo.NameElectCached, nil, check.SharedTerm},
		{zoo.NameSemBusyCount, []string{"-hold", "50ms"}, check.MaxLeases},
		{zoo.NameSplitDash, []string{"-acquisitions", "10"}, check.MutualExclusion},
	} {
		ex, ok := zoo.Lookup(tc.name)
		if !ok {
			t.Fatalf("no exhibit %s", tc.name)
		}
		found := false
		for seed := 1; seed <= 5 && !found; seed++ {
			code, out := runLiveness(t, ex.Recipe, append([]string{"-seed", strconv.Itoa(seed), "-faults", "none", "-time", "10s"}, tc.args...)...)
			found = code == ExitViolation && strings.Contains(out, "\n    "+string(tc.class)+": ")
		}
		if !found {
			t.Errorf("%s: no seed of 1-5 showed %s", tc.name, tc.class)
		}
	}
}

// A barrier's loss windows get their clients from the injections in
// order, every end of a member fault (healed, serving again, ...)
// folded into its member's window as faultWindows folds it.
func TestNarrow_SkipsEveryMemberFaultEnd(t *testing.T) {
	ins := []nemesis.Injection{
		{At: time.Second, Kind: "lose-reply", Client: 0, Member: -1, What: "applied; its reply lost"},
		{At: 2 * time.Second, Kind: nemesis.IsolateLeader, Client: -1, Member: 2, What: "isolated (the leader) for 1s"},
		{At: 3 * time.Second, Kind: nemesis.IsolateLeader, Client: -1, Member: 2, What: "healed", End: true},
		{At: 3500 * time.Millisecond, Kind: nemesis.IsolateLeader, Client: -1, Member: 2, What: "serving again: all 3 members serve, 500ms after", End: true},
		{At: 4 * time.Second, Kind: "disconnect", Client: 1, Member: -1, What: "connection cut after its reply"},
	}
	ws := faultWindows(ins, 0)
	wins := make([]lossWindow, len(ws))
	narrow(ins, wins)
	var got []int
	for _, w := range wins {
		got = append(got, w.client)
	}
	if want := []int{0, -1, 1}; !slices.Equal(got, want) {
		t.Errorf("clients of the windows %v, want %v", got, want)
	}
}
