package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/zktest"
)

// realHerd runs recipe on the servers at addrs and returns the exit
// code and the output.
func realHerd(addrs, recipe string) (int, string) {
	var out bytes.Buffer
	code := run([]string{"run", "-servers", addrs, "-recipe", recipe, "-clients", "6", "-acquisitions", "5"}, &out, io.Discard)
	return code, out.String()
}

// On real servers the herd check judges the recorded wake-ups: the lock
// whose waiters watch the directory shows a herd, the recipes page's
// lock none. Here against zksim serve's server, which speaks
// ZooKeeper's protocol; TestRunReal_HerdZooKeeper does the same on a
// real ZooKeeper.
func TestRunReal_Herd(t *testing.T) {
	_, addr := zktest.ServeFake(t, netserver.Config{Machine: machine.Config{TickMillis: 100}})
	checkRealHerd(t, addr)
}

func TestRunReal_HerdZooKeeper(t *testing.T) {
	checkRealHerd(t, strings.Join(zktest.Standalone(t), ","))
}

// checkRealHerd: real time gives no schedule control, and a run whose
// clients happen not to queue behind one another has no herd to find,
// so the herd exhibit gets up to five runs.
func checkRealHerd(t *testing.T, addrs string) {
	var code int
	var out string
	for range 5 {
		if code, out = realHerd(addrs, "zoo/dirwatch"); code != 0 {
			break
		}
	}
	if code != 1 || !strings.Contains(out, "herd: one change woke") || !strings.Contains(out, "herd (porcupine over the recorded wake-ups)") {
		t.Errorf("zoo/dirwatch: exit %d\n%s", code, out)
	}
	if code, out := realHerd(addrs, "lock"); code != 0 || !strings.Contains(out, "violations             0") {
		t.Errorf("lock: exit %d\n%s", code, out)
	}
}
