package nemesis_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/nemesis"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// A schedule strikes at the request it names (a lost request or reply at
// the first write from it), and the log says what struck whom; a fault
// whose moment never comes is reported missed.
func TestNemesis_Schedule(t *testing.T) {
	_, addr := zktest.ServeFake(t, netserver.Config{Machine: machine.Config{TickMillis: 100}})
	ctx := zktest.Context(t, 20*time.Second)
	sched := []nemesis.Fault{
		{Kind: "lose-reply", Client: 0, Member: -1, At: 2},
		{Kind: "lose-request", Client: 1, Member: -1, At: 1},
		{Kind: "disconnect", Client: 1, Member: -1, At: 50},
	}
	n, err := nemesis.New(nemesis.Config{Servers: []string{addr}, Clients: 2, Schedule: sched, SessionTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	c0 := zktest.Dial(t, ctx, []string{addr}, gozk.Config{Dialer: n.Dialer(0, nil)})
	c1 := zktest.Dial(t, ctx, []string{addr}, gozk.Config{Dialer: n.Dialer(1, nil)})
	if _, err := c0.Create(ctx, "/a", nil, zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	if _, err := c0.Create(ctx, "/b", nil, zkapi.Persistent); !errors.Is(err, zkapi.ErrConnectionLoss) {
		t.Errorf("client 1's request 2: %v, want its reply lost", err)
	}
	if _, _, err := c1.Exists(ctx, "/"); err != nil {
		t.Errorf("client 2's request 1, a read: %v; a lost request waits for a write", err)
	}
	if _, err := c1.Create(ctx, "/c", nil, zkapi.Persistent); !errors.Is(err, zkapi.ErrConnectionLoss) {
		t.Errorf("client 2's request 2: %v, want it lost", err)
	}
	var got []string
	for _, in := range n.Injections() {
		got = append(got, fmt.Sprintf("%s c%d r%d", in.Kind, in.Client, in.Request))
	}
	if want := "lose-reply c0 r2,lose-request c1 r2"; strings.Join(got, ",") != want {
		t.Errorf("injected %v, want %s", got, want)
	}
	if m := n.Missed(); len(m) != 1 || m[0] != sched[2] {
		t.Errorf("missed %v, want %v", m, sched[2])
	}
}

// Member faults without members are refused at New.
func TestNemesis_MemberFaultsNeedMembers(t *testing.T) {
	_, err := nemesis.New(nemesis.Config{Clients: 1, Schedule: []nemesis.Fault{{Kind: nemesis.KillMember, Client: -1, Member: -1, At: 1}}})
	if !errors.Is(err, nemesis.ErrRefused) {
		t.Errorf("New: %v, want ErrRefused", err)
	}
}

// members records what the nemesis does to a pretend ensemble.
type members struct {
	mu        sync.Mutex
	calls     []string
	leader    int
	rejoining int           // a member that does not serve yet; -1: none
	done      chan struct{} // closed at the first Resume, Restart, Heal or release
	once      sync.Once
}

func (m *members) finish() { m.once.Do(func() { close(m.done) }) }

func (m *members) Len() int { return 3 }
func (m *members) Leader(context.Context) (int, error) {
	return m.leader, nil
}
func (m *members) Mode(i int) string {
	switch {
	case i == m.leader:
		return "leader"
	case i == m.rejoining:
		return ""
	}
	return "follower"
}
func (m *members) Pause(i int) error  { return m.call("pause", i) }
func (m *members) Resume(i int) error { defer m.finish(); return m.call("resume", i) }
func (m *members) Kill(i int) error   { return m.call("kill", i) }
func (m *members) Restart(_ context.Context, i int) error {
	defer m.finish()
	return m.call("restart", i)
}
func (m *members) Isolate(i int) error { return m.call("isolate", i) }
func (m *members) Heal(i int) error    { defer m.finish(); return m.call("heal", i) }
func (m *members) Lag(i int, d time.Duration) error {
	if d == 0 {
		defer m.finish()
		return m.call("release", i)
	}
	return m.call(fmt.Sprintf("lag %v", d), i)
}

func (m *members) call(what string, i int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, fmt.Sprintf("%s %d", what, i))
	return nil
}

// A member fault strikes at the run's request it names, on the member
// then leading when it names none (an isolation always; a lag on a
// follower, never the leader nor a member still rejoining), and the
// member comes back after its time.
func TestNemesis_MemberFault(t *testing.T) {
	_, addr := zktest.ServeFake(t, netserver.Config{Machine: machine.Config{TickMillis: 100}})
	ctx := zktest.Context(t, 20*time.Second)
	for _, tc := range []struct {
		kind      string
		member    int
		rejoining int
		want      string
	}{
		{nemesis.PauseMember, -1, -1, "pause 2,resume 2"},
		{nemesis.KillMember, 0, -1, "kill 0,restart 0"},
		{nemesis.IsolateLeader, -1, -1, "isolate 2,heal 2"},
		{nemesis.LagMember, -1, -1, "lag 10ms 0,release 0"},
		{nemesis.LagMember, 2, -1, "lag 10ms 0,release 0"},
		{nemesis.LagMember, 1, -1, "lag 10ms 1,release 1"},
		{nemesis.LagMember, 0, 0, "lag 10ms 1,release 1"},
	} {
		m := &members{leader: 2, rejoining: tc.rejoining, done: make(chan struct{})}
		n, err := nemesis.New(nemesis.Config{Servers: []string{addr}, Clients: 1, Members: m,
			Schedule: []nemesis.Fault{{Kind: tc.kind, Client: -1, Member: tc.member, At: 2, For: 10 * time.Millisecond}}})
		if err != nil {
			t.Fatal(err)
		}
		c := zktest.Dial(t, ctx, []string{addr}, gozk.Config{Dialer: n.Dialer(0, nil)})
		for range 2 {
			if _, _, err := c.Exists(ctx, "/"); err != nil {
				t.Fatal(err)
			}
		}
		select {
		case <-m.done:
		case <-ctx.Done():
			t.Fatalf("%s: the member never came back", tc.kind)
		}
		c.Close()
		n.Close()
		if got := strings.Join(m.calls, ","); got != tc.want {
			t.Errorf("%s: members saw %s, want %s", tc.kind, got, tc.want)
		}
		ins := n.Injections()
		want := 3 // the fault, its end, and every member serving again
		if tc.rejoining >= 0 {
			want = 2 // a member that never serves: Close ends the wait
		}
		if len(ins) != want || ins[0].Kind != tc.kind || ins[0].Member != m.leader && tc.member < 0 && tc.kind != nemesis.LagMember || !ins[1].Ends() ||
			want == 3 && !strings.HasPrefix(ins[2].What, "serving again: all 3 members serve") {
			t.Errorf("%s: injections %v", tc.kind, ins)
		}
	}
}

// Stop ends the member faults: one whose moment came while another was
// under way is not injected after Stop (when both are ready, a select
// may pick either: tried 20 times).
func TestNemesis_NoMemberFaultAfterStop(t *testing.T) {
	_, addr := zktest.ServeFake(t, netserver.Config{Machine: machine.Config{TickMillis: 100}})
	ctx := zktest.Context(t, 20*time.Second)
	for try := range 20 {
		m := &members{leader: 2, rejoining: -1, done: make(chan struct{})}
		n, err := nemesis.New(nemesis.Config{Servers: []string{addr}, Clients: 1, Members: m, Schedule: []nemesis.Fault{
			{Kind: nemesis.PauseMember, Client: -1, Member: 0, At: 1, For: time.Minute},
			{Kind: nemesis.PauseMember, Client: -1, Member: 1, At: 2, For: time.Minute},
		}})
		if err != nil {
			t.Fatal(err)
		}
		c := zktest.Dial(t, ctx, []string{addr}, gozk.Config{Dialer: n.Dialer(0, nil)})
		for range 2 {
			if _, _, err := c.Exists(ctx, "/"); err != nil {
				t.Fatal(err)
			}
		}
		for len(n.Injections()) == 0 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		n.Stop()
		c.Close()
		n.Close()
		if got := strings.Join(m.calls, ","); got != "pause 0,resume 0" {
			t.Fatalf("try %d: members saw %s, want pause 0,resume 0 (nothing after Stop)", try, got)
		}
	}
}

// slowMembers are members whose paused member serves again only back
// after its Resume.
type slowMembers struct {
	*members
	back    time.Duration
	resumed time.Time
	paused  int
}

func (m *slowMembers) Pause(i int) error {
	m.mu.Lock()
	m.paused = i
	m.mu.Unlock()
	return m.members.Pause(i)
}
func (m *slowMembers) Resume(i int) error {
	m.mu.Lock()
	m.resumed = time.Now()
	m.mu.Unlock()
	return m.members.Resume(i)
}
func (m *slowMembers) Mode(i int) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i == m.paused && (m.resumed.IsZero() || time.Since(m.resumed) < m.back) {
		return ""
	}
	return m.members.Mode(i)
}

// Member faults come one at a time, and the ensemble is whole between
// them: a kill whose moment comes while a paused member is still
// rejoining waits until every member serves and the ensemble has
// settled (2 s), so that two members are never out at once.
func TestNemesis_MemberFaultsWaitForWhole(t *testing.T) {
	_, addr := zktest.ServeFake(t, netserver.Config{Machine: machine.Config{TickMillis: 100}})
	ctx := zktest.Context(t, 20*time.Second)
	m := &slowMembers{members: &members{leader: 2, rejoining: -1, done: make(chan struct{})}, back: 300 * time.Millisecond, paused: -1}
	n, err := nemesis.New(nemesis.Config{Servers: []string{addr}, Clients: 1, Members: m, Schedule: []nemesis.Fault{
		{Kind: nemesis.PauseMember, Client: -1, Member: 1, At: 2, For: 10 * time.Millisecond},
		{Kind: nemesis.KillMember, Client: -1, Member: 0, At: 3, For: 10 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	c := zktest.Dial(t, ctx, []string{addr}, gozk.Config{Dialer: n.Dialer(0, nil)})
	defer c.Close()
	for range 3 {
		if _, _, err := c.Exists(ctx, "/"); err != nil {
			t.Fatal(err)
		}
	}
	var ins []nemesis.Injection
	for ctx.Err() == nil {
		if ins = n.Injections(); len(ins) >= 4 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(ins) < 4 || !strings.HasPrefix(ins[2].What, "serving again") || ins[3].Kind != nemesis.KillMember {
		t.Fatalf("injections %v: want the pause, its end, the ensemble whole, then the kill", ins)
	}
	if back, kill := ins[2].At-ins[1].At, ins[3].At-ins[2].At; back < 250*time.Millisecond || kill < 1900*time.Millisecond {
		t.Errorf("whole %v after the resume, the kill %v after that: want about 300ms and 2s (%v)", back, kill, ins)
	}
}
