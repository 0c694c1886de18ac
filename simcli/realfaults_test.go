package simcli_test

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/longtest"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/simcli"
	"github.com/zksim/zksim/zoo"
)

// runReal runs zksim run on servers addr with args, as the zksim command
// does, and returns its exit code and report.
func runReal(t *testing.T, addr string, recipes []recipe.Lock, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	cli := &simcli.CLI{Name: "zksim", Recipes: recipes}
	code := cli.Run(append([]string{"run", "-servers", addr}, args...), &out, &errb)
	return code, out.String() + errb.String()
}

// injected reports whether the report lists an injection of kind.
func injected(out, kind string) bool {
	return regexp.MustCompile(`(?m)^    \+\d+\.\d{3}s ` + regexp.QuoteMeta(kind) + ` +(client|member) \d+: `).MatchString(out)
}

// fakeServer is zksim serve's server, which speaks ZooKeeper's protocol,
// with 100 ms ticks: sessions of 0.2 to 2 s.
func fakeServer(t *testing.T) string {
	_, addr := zktest.ServeFake(t, netserver.Config{Machine: machine.Config{TickMillis: 100}})
	return addr
}

// clientFaults runs the lock on addr under the client-side faults that
// leave every client running, and checks that each kind is injected and
// listed with its time, and that the lock survives them all.
func clientFaults(t *testing.T, addr string) {
	t.Helper()
	code, out := runReal(t, addr, []recipe.Lock{zoo.Mutex()}, "-recipe", "lock", "-clients", "3", "-acquisitions", "3", "-seed", "1",
		"-faults", "lose-request=2,lose-reply=2,disconnect=2,expire")
	if code != 0 || !strings.Contains(out, "violations             0") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, k := range []string{"lose-request", "lose-reply", "disconnect", "expire"} {
		if !injected(out, k) {
			t.Errorf("no %s injected\n%s", k, out)
		}
	}
	if !strings.Contains(out, "faults lose-request=2,lose-reply=2,disconnect=2,expire=1") {
		t.Errorf("the header does not say the faults\n%s", out)
	}
}

// stopFaults runs the lock on addr with a client paused past its session
// timeout and another crashed: both injected, no violation.
func stopFaults(t *testing.T, addr string) {
	t.Helper()
	code, out := runReal(t, addr, []recipe.Lock{zoo.Mutex()}, "-recipe", "lock", "-clients", "2", "-acquisitions", "3", "-seed", "1",
		"-faults", "pause,crash")
	if code != 0 || !strings.Contains(out, "violations             0") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, k := range []string{"pause", "crash"} {
		if !injected(out, k) {
			t.Errorf("no %s injected\n%s", k, out)
		}
	}
}

func TestRunReal_ClientFaults(t *testing.T) { clientFaults(t, fakeServer(t)) }

func TestRunReal_PauseAndCrash(t *testing.T) { stopFaults(t, fakeServer(t)) }

// The same on a real ZooKeeper server (scripts/zk.sh start DIR 1).
func TestRunReal_ClientFaultsOnZooKeeper(t *testing.T) {
	clientFaults(t, strings.Join(zktest.Standalone(t), ","))
}

// A real server grants the clients' 4 s session timeout, so a pause
// stalls a client 8 s: a long test.
func TestRunReal_PauseAndCrashOnZooKeeper(t *testing.T) {
	longtest.Skip(t)
	stopFaults(t, strings.Join(zktest.Standalone(t), ","))
}

// What a real run cannot inject is refused before it starts, with the
// reason; so are member faults on servers the run did not start.
func TestRunReal_RefusedFaults(t *testing.T) {
	for spec, want := range map[string]string{
		"reorder":          "reorder: it breaks ZooKeeper's ordering guarantee",
		"reap=1":           "reap: a real server's container reaper runs on its own timer",
		"percent=5,pause":  "percent: a real run draws each fault's moment from the seed",
		"kill-member":      "kill-member needs an ensemble the run started (-ensemble N), not -servers",
		"lose-reply,bogus": `unknown fault "bogus"`,
	} {
		code, out := runReal(t, "127.0.0.1:1", []recipe.Lock{zoo.Mutex()}, "-faults", spec)
		if code != simcli.ExitUsage || !strings.Contains(out, want) {
			t.Errorf("-faults %s: exit %d, %q; want exit 2 and %q", spec, code, out, want)
		}
	}
}

// The lost create without a GUID (zoo's noguid-retry): the simulator
// finds it as a deadlock with an orphan (its Violation and Also). On a
// server, a lost reply to its create leaves the first node behind, owned
// by the client's live session, and the client waits on it forever: the
// run stops at its time limit and finds the orphan, a class the
// simulator reports for it too.
func TestRunReal_LostCreateExhibit(t *testing.T) {
	lostCreate(t, fakeServer(t))
}

// The same on a real ZooKeeper server.
func TestRunReal_LostCreateExhibitOnZooKeeper(t *testing.T) {
	lostCreate(t, strings.Join(zktest.Standalone(t), ","))
}

func lostCreate(t *testing.T, addr string) {
	t.Helper()
	ex, _ := zoo.Lookup(zoo.NameNoGUIDRetry)
	if !slices.Contains(append([]check.Class{ex.Violation}, ex.Also...), check.Orphan) {
		t.Fatalf("%s: the simulator no longer reports an orphan for it (%v, also %v)", ex.Name, ex.Violation, ex.Also)
	}
	// Which request a scheduled lost reply strikes depends on timing as
	// well as on the seed (the first write at or after its moment: a
	// create or a delete), so seeds are tried until one loses a create's
	// reply; that run must find the orphan.
	for seed := 1; seed <= 10; seed++ {
		code, out := runReal(t, addr, []recipe.Lock{ex.Recipe}, "-recipe", ex.Name, "-clients", "2", "-acquisitions", "3",
			"-seed", strconv.Itoa(seed), "-faults", "lose-reply=3", "-time", "3s")
		if !simcli.LostCreateReply.MatchString(out) {
			continue
		}
		if code != simcli.ExitViolation || !strings.Contains(out, string(check.Orphan)) {
			t.Errorf("seed %d: exit %d, want %d with an orphan after a create's reply was lost\n%s", seed, code, simcli.ExitViolation, out)
		}
		return
	}
	t.Fatal("no seed from 1 to 10 lost a create's reply")
}

// A semaphore keeps its nodes in directories of its own (queue and
// leases) under the lock directory: those are not nodes a client left
// behind, and a run with every lease released finds no orphan.
func TestRunReal_SemaphoreDirectoriesAreNoOrphans(t *testing.T) {
	semaphoreClean(t, fakeServer(t))
}

// The same on a real ZooKeeper server.
func TestRunReal_SemaphoreDirectoriesAreNoOrphansOnZooKeeper(t *testing.T) {
	semaphoreClean(t, strings.Join(zktest.Standalone(t), ","))
}

func semaphoreClean(t *testing.T, addr string) {
	t.Helper()
	sem := zoo.Semaphore(2)
	code, out := runReal(t, addr, []recipe.Lock{sem}, "-recipe", sem.Name, "-clients", "3", "-acquisitions", "2", "-seed", "1",
		"-faults", "none")
	if code != 0 || !strings.Contains(out, "violations             0") {
		t.Errorf("exit %d, want 0 and no violation\n%s", code, out)
	}
}
