//go:build unix

package nemesis_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/longtest"
	"github.com/zksim/zksim/internal/nemesis"
	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// clusterMembers is nemesis.Members over an ensemble scripts/zk.sh
// started (its servers numbered from 1, the nemesis's from 0): what
// internal/ensemble gives a run, for this test.
type clusterMembers struct{ c *zktest.Cluster }

func (m clusterMembers) Len() int { return len(m.c.Addrs) }
func (m clusterMembers) Leader(ctx context.Context) (int, error) {
	i, err := m.c.WaitLeader(ctx)
	return i - 1, err
}
func (m clusterMembers) Mode(i int) string {
	md, _ := m.c.Mode(i + 1)
	return md
}
func (m clusterMembers) Pause(i int) error  { return m.signal(i, syscall.SIGSTOP) }
func (m clusterMembers) Resume(i int) error { return m.signal(i, syscall.SIGCONT) }
func (m clusterMembers) Kill(i int) error   { return m.c.Kill(i + 1) }
func (m clusterMembers) Restart(_ context.Context, i int) error {
	return m.c.Restart(i + 1)
}

// The links between scripts/zk.sh's members are direct: no relay to cut.
func (m clusterMembers) Isolate(int) error            { return errNoRelays }
func (m clusterMembers) Heal(int) error               { return errNoRelays }
func (m clusterMembers) Lag(int, time.Duration) error { return errNoRelays }

var errNoRelays = errors.New("scripts/zk.sh's members link directly: no relays")

func (m clusterMembers) signal(i int, sig syscall.Signal) error {
	pid, err := m.c.PID(i + 1)
	if err != nil {
		return err
	}
	return syscall.Kill(pid, sig)
}

// On a real 3-member ensemble (ZKSIM_ZK_ENSEMBLE), the leader is paused
// and then killed while two clients write through their proxies: each
// member fault is injected and undone, and the clients' sessions live
// through both, reconnecting through their proxies to the members still
// serving.
func TestNemesis_MemberFaultsOnEnsemble(t *testing.T) {
	longtest.Skip(t)
	c := zktest.Serving(t, zktest.EnsembleExclusive(t))
	ms := clusterMembers{c}
	t.Cleanup(func() {
		for i := range ms.Len() {
			ms.Resume(i)
			zktest.RestartIfDown(t, c, i+1)
		}
	})
	ctx := zktest.Context(t, 60*time.Second)
	sched := []nemesis.Fault{
		{Kind: nemesis.PauseMember, Client: -1, Member: -1, At: 5, For: 3 * time.Second},
		{Kind: nemesis.KillMember, Client: -1, Member: -1, At: 40, For: 2 * time.Second},
	}
	n, err := nemesis.New(nemesis.Config{Servers: c.Addrs, Clients: 2, Schedule: sched, Members: ms})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	admin := zktest.Dial(t, ctx, c.Addrs, gozk.Config{})
	root := zktest.Root(t, ctx, admin, "/nemesis-members-")
	var wg sync.WaitGroup
	lost := make([]bool, 2)
	for i := range 2 {
		conn := zktest.Dial(t, ctx, c.Addrs, gozk.Config{SessionTimeout: 10 * time.Second, Dialer: n.Dialer(i, nil)})
		wg.Add(1)
		go func() {
			defer wg.Done()
			lost[i] = writeUntil(ctx, conn, root, func() bool { return restored(n.Injections()) == 2 })
		}()
	}
	wg.Wait()
	for _, in := range n.Injections() {
		t.Log(in)
	}
	if got := restored(n.Injections()); got != 2 {
		t.Errorf("%d member faults undone, want 2", got)
	}
	for i, l := range lost {
		if l {
			t.Errorf("client %d lost its session", i+1)
		}
	}
	if err := allServing(ctx, c); err != nil {
		t.Errorf("after the member faults: %v", err)
	}
}

// allServing polls until every member of c answers srvr with a mode: a
// stopped or dead member never does.
func allServing(ctx context.Context, c *zktest.Cluster) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		var errs []error
		for i := range c.Addrs {
			if _, err := c.Mode(i + 1); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(append(errs, ctx.Err())...)
		case <-tick.C:
		}
	}
}

// writeUntil creates sequential nodes under root until done, retrying
// through connection loss, and reports whether the session was lost.
func writeUntil(ctx context.Context, c zkapi.Conn, root string, done func() bool) bool {
	id := c.Session().ID
	for !done() && ctx.Err() == nil {
		_, err := c.Create(ctx, root+"/n-", nil, zkapi.PersistentSequential)
		if err != nil && !errors.Is(err, zkapi.ErrConnectionLoss) {
			break
		}
		if err != nil {
			queue.AwaitLink(ctx, c)
		}
	}
	return c.Session().Lost(id)
}

// restored counts the member faults that were undone.
func restored(ins []nemesis.Injection) int {
	k := 0
	for _, in := range ins {
		if in.What == "continued (SIGCONT)" || in.What == "restarted" {
			k++
		}
	}
	return k
}

// go-zookeeper reconnects to the next address of its list; through a
// Proxy that must reach that server. On a real ensemble, the member a
// client is connected to is killed: the client's next write succeeds
// through its proxy on another member, with the same session.
func TestProxy_ReconnectsToAnotherMember(t *testing.T) {
	longtest.Skip(t)
	c := zktest.Serving(t, zktest.EnsembleExclusive(t))
	ctx := zktest.Context(t, 45*time.Second)
	p, err := nemesis.NewProxy(nemesis.ProxyConfig{Servers: c.Addrs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	conn := zktest.Dial(t, ctx, c.Addrs, gozk.Config{SessionTimeout: 10 * time.Second, Dialer: p.Dialer(nil)})
	admin := zktest.Dial(t, ctx, c.Addrs, gozk.Config{})
	root := zktest.Root(t, ctx, admin, "/nemesis-route-")
	before, _ := p.Session()
	i := slices.Index(c.Addrs, before.Addr) + 1
	t.Cleanup(func() { zktest.RestartIfDown(t, c, i) })
	if err := c.Kill(i); err != nil {
		t.Fatal(err)
	}
	if lost := writeUntil(ctx, conn, root, func() bool { s, _ := p.Session(); return s.Addr != before.Addr }); lost {
		t.Fatalf("the session was lost when its member %d was killed", i)
	}
	if _, err := conn.Create(ctx, root+"/after", nil, zkapi.Persistent); err != nil {
		t.Fatalf("a write after the reconnect: %v", err)
	}
	after, _ := p.Session()
	if after.SessionID != before.SessionID || after.Addr == before.Addr {
		t.Errorf("session %#x on %s, then %#x on %s: want the same session on another member",
			before.SessionID, before.Addr, after.SessionID, after.Addr)
	}
}
