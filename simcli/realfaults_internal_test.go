package simcli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zoo"
)

// pretendMembers is a started ensemble as a real run sees it, in front
// of one fake server: what the nemesis asks of the members is recorded,
// not done.
type pretendMembers struct {
	mu    sync.Mutex
	calls []string
}

func (m *pretendMembers) Len() int                            { return 3 }
func (m *pretendMembers) Leader(context.Context) (int, error) { return 1, nil }
func (m *pretendMembers) Mode(i int) string {
	if i == 1 {
		return "leader"
	}
	return "follower"
}
func (m *pretendMembers) Pause(i int) error  { return m.call("pause", i) }
func (m *pretendMembers) Resume(i int) error { return m.call("resume", i) }
func (m *pretendMembers) Kill(i int) error   { return m.call("kill", i) }
func (m *pretendMembers) Restart(_ context.Context, i int) error {
	return m.call("restart", i)
}
func (m *pretendMembers) Isolate(i int) error { return m.call("isolate", i) }
func (m *pretendMembers) Heal(i int) error    { return m.call("heal", i) }
func (m *pretendMembers) Lag(i int, d time.Duration) error {
	if d == 0 {
		return m.call("release", i)
	}
	return m.call("lag", i)
}

func (m *pretendMembers) call(what string, i int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, fmt.Sprintf("%s %d", what, i))
	return nil
}

// With the members of a started ensemble (what -ensemble gives a run),
// a member fault is injected at its drawn moment, undone, and listed in
// the report.
func TestRealRun_MemberFaults(t *testing.T) {
	_, addr := zktest.ServeFake(t, netserver.Config{Machine: machine.Config{TickMillis: 100}})
	c := &CLI{Name: "zksim", Recipes: []recipe.Lock{zoo.Mutex()}}
	for kind, verbs := range map[string][2]string{"pause-member": {"pause", "resume"}, "kill-member": {"kill", "restart"},
		"isolate-leader": {"isolate", "heal"}, "lag-member": {"lag", "release"}} {
		rc, code := c.parseRun([]string{"-servers", addr, "-recipe", "lock", "-clients", "2", "-acquisitions", "3", "-seed", "2", "-faults", kind}, io.Discard)
		if code >= 0 {
			t.Fatalf("%s: parse: exit %d", kind, code)
		}
		m := &pretendMembers{}
		var out bytes.Buffer
		code = (&realRun{rc: rc, members: m}).run(t.Context(), &out, &out)
		var member int
		want := ""
		if len(m.calls) > 0 {
			fmt.Sscanf(m.calls[0], verbs[0]+" %d", &member)
			want = fmt.Sprintf("%s %d,%s %d", verbs[0], member, verbs[1], member)
		}
		got := strings.Join(m.calls, ",")
		if code != ExitOK || got != want || strings.Count(out.String(), fmt.Sprintf("%-14s member %d: ", kind, member+1)) != 3 { // the fault, its end, the ensemble whole
			t.Errorf("%s: exit %d, members saw %q, want the fault and its undoing in the report\n%s", kind, code, got, out.String())
		}
	}
}
