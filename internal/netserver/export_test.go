package netserver

import (
	"context"
	"time"
)

// SetSessionlessTimeout shortens how long s keeps a connection that has
// not completed its handshake; call it before s serves anything.
func SetSessionlessTimeout(s *Server, d time.Duration) { s.sessionless = d }

// FrameBudgetUse says how s's frame budget is used: the bytes reserved
// now, the most ever reserved at once, and the frames refused.
type FrameBudgetUse struct{ Held, Peak, Refused int }

// FrameBudget returns the use of s's frame budget.
func FrameBudget(s *Server) FrameBudgetUse {
	b := &s.budget
	b.mu.Lock()
	defer b.mu.Unlock()
	return FrameBudgetUse{b.held, b.peak, b.refused}
}

// WaitFrameBudget blocks until cond holds of the use of s's frame budget,
// checked after every change, or ctx ends.
func WaitFrameBudget(ctx context.Context, s *Server, cond func(FrameBudgetUse) bool) error {
	b := &s.budget
	return b.changed.Wait(ctx, &b.mu, func() bool { return cond(FrameBudgetUse{b.held, b.peak, b.refused}) })
}

// WatchRefusals returns how many requests s refused for the per-session
// and the server-wide watch caps.
func WatchRefusals(s *Server) (session, total int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watchLimits.refusedSession, s.watchLimits.refusedTotal
}

// WatchedPaths returns how many paths s's connections keep for the
// four-letter words (conn.watched).
func WatchedPaths(s *Server) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for c := range s.conns {
		n += len(c.watched)
	}
	return n
}

// WaitConns blocks until s has n connections, or ctx ends.
func WaitConns(ctx context.Context, s *Server, n int) error {
	return s.changed.Wait(ctx, &s.mu, func() bool { return len(s.conns) == n })
}
