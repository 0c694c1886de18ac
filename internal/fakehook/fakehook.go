// Package fakehook gives the module's own tests what fakezk keeps from
// its users: the Machine behind a Server, to change it directly or to read
// what fakezk.State does not show (watches, sequence counters, virtual
// time), and the request record an Interceptor is handed. fakezk hands its
// callbacks the Machine itself as their State and the proto record as a
// Request's Record; this package asserts them back.
package fakehook

import (
	"context"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
)

// Interceptor is a fakezk.Interceptor that sees the Machine, which it may
// change first (expire a session, apply another session's request), and
// the request record.
type Interceptor func(m *machine.Machine, session int64, req proto.Request) fakezk.Fault

// Intercept installs f on s (nil removes it), as Server.Intercept.
func Intercept(s *fakezk.Server, f Interceptor) {
	if f == nil {
		s.Intercept(nil)
		return
	}
	s.Intercept(func(st fakezk.State, r fakezk.Request) fakezk.Fault {
		return f(st.(*machine.Machine), r.Session, r.Record.(proto.Request))
	})
}

// Inspect runs f with s's Machine locked, as Server.Inspect; events that
// f causes are delivered after it.
func Inspect(s *fakezk.Server, f func(m *machine.Machine)) {
	s.Inspect(func(st fakezk.State) { f(st.(*machine.Machine)) })
}

// WaitUntil is Server.WaitUntil with cond reading the Machine.
func WaitUntil(ctx context.Context, s *fakezk.Server, cond func(m *machine.Machine) bool) error {
	return s.WaitUntil(ctx, func(st fakezk.State) bool { return cond(st.(*machine.Machine)) })
}
