// Package ctxcond is a condition variable that honours a context: the one
// wait loop behind fakezk.Server.WaitUntil, fakezk.Conn.WaitSession and
// netserver.Server.WaitUntil. sync.Cond cannot be abandoned when a context
// ends; a channel closed at every change can.
//
// The state a Var announces is guarded by its owner's mutex, and so is the
// Var: Broadcast is called with the mutex held, after the change.
package ctxcond

import (
	"context"
	"sync"
)

// Var wakes the goroutines waiting on it. The zero value is ready; a Var
// must not be copied after first use.
type Var struct {
	ch chan struct{} // closed at the next Broadcast; nil while nobody waits
}

// Broadcast wakes every waiter, which then re-checks its condition. Call it
// with the owner's mutex held.
func (v *Var) Broadcast() {
	if v.ch != nil {
		close(v.ch)
		v.ch = nil
	}
}

// Wait blocks until cond, run with mu held at first and after every
// Broadcast, holds, or ctx ends. A condition already true is reported even
// under a done ctx.
func (v *Var) Wait(ctx context.Context, mu sync.Locker, cond func() bool) error {
	for {
		mu.Lock()
		ok := cond()
		if !ok && v.ch == nil {
			v.ch = make(chan struct{})
		}
		ch := v.ch
		mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
