//go:build unix

package nemesis_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/ensemble"
	"github.com/zksim/zksim/internal/nemesis"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi/gozk"
)

// On a real 3-member ensemble the run started (internal/ensemble, the
// Members a -ensemble run hands over), two clients write through their
// proxies while the nemesis isolates the leader and then lags a
// follower: the isolation strikes the member leading then, and after
// the heal another member leads; the lag strikes a follower of that
// leader; both end, and the clients keep their sessions.
func TestNemesis_PeerFaultsOnEnsemble(t *testing.T) {
	if err := ensemble.Installed(ensemble.Options{N: 3}); err != nil {
		t.Skipf("needs Java and Debian's zookeeper package: %v", err)
	}
	ctx := zktest.Context(t, time.Minute)
	e, err := ensemble.Start(ctx, ensemble.Options{N: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Stop() })
	first, err := e.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sched := []nemesis.Fault{
		{Kind: nemesis.IsolateLeader, Client: -1, Member: -1, At: 3, For: 1500 * time.Millisecond},
		{Kind: nemesis.LagMember, Client: -1, Member: -1, At: 6, For: time.Second},
	}
	n, err := nemesis.New(nemesis.Config{Servers: e.Addrs(), Clients: 2, Schedule: sched, Members: e})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	admin := zktest.Dial(t, ctx, e.Addrs(), gozk.Config{})
	root := zktest.Root(t, ctx, admin, "/nemesis-peers-")
	ended := func() int {
		k := 0
		for _, in := range n.Injections() {
			if in.Ends() {
				k++
			}
		}
		return k
	}
	var wg sync.WaitGroup
	lost := make([]bool, 2)
	for i := range 2 {
		conn := zktest.Dial(t, ctx, e.Addrs(), gozk.Config{SessionTimeout: 10 * time.Second, Dialer: n.Dialer(i, nil)})
		wg.Go(func() { lost[i] = writeUntil(ctx, conn, root, func() bool { return ended() == 4 }) })
	}
	wg.Wait()
	ins := n.Injections()
	for _, in := range ins {
		t.Log(in)
	}
	// Each fault, its end, and the ensemble serving whole again.
	if len(ins) != 6 || ins[0].Kind != nemesis.IsolateLeader || ins[0].Member != first || !strings.HasPrefix(ins[0].What, "isolated (the leader)") ||
		ins[1].What != "healed" || !strings.HasPrefix(ins[2].What, "serving again") || ins[3].Kind != nemesis.LagMember || !ins[4].Ends() || !ins[5].Ends() {
		t.Fatalf("injections %v, want member %d isolated and healed, then a lag and its end", ins, first+1)
	}
	next, err := e.Leader(ctx)
	if err != nil || next == first {
		t.Errorf("leader after the heal: member %d, %v; want another than the isolated %d", next+1, err, first+1)
	}
	if lag := ins[3].Member; lag == next || !strings.Contains(ins[3].What, "a follower of member ") {
		t.Errorf("lagged member %d (%s), leader %d: want a follower", lag+1, ins[3].What, next+1)
	}
	for i, l := range lost {
		if l {
			t.Errorf("client %d lost its session", i+1)
		}
	}
}
