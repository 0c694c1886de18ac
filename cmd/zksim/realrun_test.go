package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/zktest"
)

// Bad input for real runs is refused with a clear message and exit 2; an
// unreachable server is not bad input, nor a violation: exit 3, could
// not run.
func TestRunReal_BadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-servers", "127.0.0.1:1", "-faults", "reorder=1"}, "fault refused on real servers: reorder: it breaks ZooKeeper's ordering guarantee"},
		{[]string{"run", "-servers", "127.0.0.1:1", "-faults", "expire=x"}, `bad -faults spec: fault "expire": "x" is not a count`},
		{[]string{"run", "-servers", "127.0.0.1:1", "-faults", ""}, "-faults is empty"},
		{[]string{"run", "-servers", "127.0.0.1:1", "-recipe", "election", "-read", "30"}, "-read: election makes no read acquisitions"},
	} {
		var errb bytes.Buffer
		if code := run(tc.args, io.Discard, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, %q", tc.args, code, errb.String())
		}
	}
	start := time.Now()
	var errb bytes.Buffer
	if code := run([]string{"run", "-servers", "127.0.0.1:1"}, io.Discard, &errb); code != 3 || !strings.Contains(errb.String(), "cannot reach 127.0.0.1:1") {
		t.Errorf("unreachable server: exit %d, %q", code, errb.String())
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v to give up on an unreachable server", d)
	}
}

// The lock and the read/write lock on a real server, with sessions expired
// while holding: no violation, and the checkers say what they checked.
func TestRunReal_Recipes(t *testing.T) {
	addrs := strings.Join(zktest.Standalone(t), ",")
	for recipe, checks := range map[string]string{"lock": "mutual exclusion", "rwlock": "reader/writer exclusion"} {
		var out bytes.Buffer
		code := run([]string{"run", "-servers", addrs, "-recipe", recipe, "-clients", "4", "-acquisitions", "8", "-faults", "expire=2"}, &out, io.Discard)
		if code != 0 || !strings.Contains(out.String(), "violations             0") || !strings.Contains(out.String(), "checked: "+checks+" (exact interval check), fencing, orphans") {
			t.Errorf("%s: exit %d\n%s", recipe, code, out.String())
		}
	}
}

// expire=N expires N sessions while they hold the lock, spread over the
// run, or says how many it could: here against zksim serve's server,
// which speaks ZooKeeper's protocol.
func TestRunReal_ExpireForcesN(t *testing.T) {
	_, addr := zktest.ServeFake(t, netserver.Config{Machine: machine.Config{TickMillis: 100}})
	for _, tc := range []struct{ expire, want string }{
		{"expire=3", "expired while holding  3 of 3 asked\n"},
		{"expire=9", "expired while holding  6 of 9 asked: the run held the lock 6 times\n"},
	} {
		var out bytes.Buffer
		code := run([]string{"run", "-servers", addr, "-clients", "3", "-acquisitions", "2", "-faults", tc.expire}, &out, io.Discard)
		if code != 0 || !strings.Contains(out.String(), tc.want) || !strings.Contains(out.String(), "violations             0") {
			t.Errorf("%s: exit %d\n%s", tc.expire, code, out.String())
		}
	}
}
