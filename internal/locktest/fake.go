package locktest

import (
	"sync"
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fakehook"
	"github.com/zksim/zksim/internal/machine"
)

// Rule decides the fault for one request, or says it does not apply.
type Rule func(m *machine.Machine, sid int64, req proto.Request) (fakezk.Fault, bool)

// Fake is an in-process fakezk server for scripted recipe tests: it
// records every request per session, and applies one-shot fault rules in
// the order they were added, each used up when it applies.
type Fake struct {
	Srv *fakezk.Server

	mu       sync.Mutex
	requests map[int64][]proto.Request
	rules    []Rule
	every    func(m *machine.Machine, sid int64, req proto.Request) fakezk.Fault
}

// NewFake starts a fake server with cfg, closed when t ends.
func NewFake(t testing.TB, cfg fakezk.Config) *Fake {
	f := &Fake{Srv: fakezk.MustServer(cfg), requests: map[int64][]proto.Request{}}
	fakehook.Intercept(f.Srv, f.intercept)
	t.Cleanup(func() { f.Srv.Close() })
	return f
}

func (f *Fake) intercept(m *machine.Machine, sid int64, req proto.Request) fakezk.Fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests[sid] = append(f.requests[sid], req)
	for i, r := range f.rules {
		if fault, ok := r(m, sid, req); ok {
			f.rules = append(f.rules[:i], f.rules[i+1:]...)
			return fault
		}
	}
	if f.every != nil {
		return f.every(m, sid, req)
	}
	return fakezk.Deliver
}

// Once adds a one-shot fault rule.
func (f *Fake) Once(r Rule) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = append(f.rules, r)
}

// Every sets the rule asked for each request no one-shot rule took.
func (f *Fake) Every(fn func(m *machine.Machine, sid int64, req proto.Request) fakezk.Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.every = fn
}

// Sent returns what session sid has sent so far, as request strings.
func (f *Fake) Sent(sid int64) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, len(f.requests[sid]))
	for i, r := range f.requests[sid] {
		out[i] = r.String()
	}
	return out
}

// Listings counts the getChildren requests on dir session sid has sent:
// a recipe lists once per attempt and once per wake-up.
func (f *Fake) Listings(sid int64, dir string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests[sid] {
		if g, ok := r.(proto.GetChildren); ok && g.Path == dir {
			n++
		}
	}
	return n
}

// Conn opens a session with a 4 s timeout, or fails the test.
func (f *Fake) Conn(t testing.TB) fakezk.Conn {
	t.Helper()
	c, err := f.Srv.Connect(fakezk.ConnOptions{SessionTimeoutMs: 4000})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
