package queue

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zksim/zksim/zkapi"
)

// Errors about a held node.
var (
	ErrSuspended = errors.New("lock: disconnected, holding is uncertain")
	ErrReleased  = errors.New("lock: lease released")
)

// Hold is a member's node while its owner holds it: the lease state every
// lock recipe shares.
type Hold struct {
	Q                Queue
	Path             string
	SID              int64 // the session that owns the node
	LoseOnDisconnect bool

	mu       sync.Mutex
	token    int64
	released bool
}

// Check reports, without blocking, whether the node is still held: nil,
// ErrReleased, ErrSessionLost, or ErrSuspended (disconnected, with
// LoseOnDisconnect).
func (h *Hold) Check() error {
	h.mu.Lock()
	released := h.released
	h.mu.Unlock()
	if released {
		return ErrReleased
	}
	return h.checkSession(h.Q.Conn.Session())
}

func (h *Hold) checkSession(s zkapi.Session) error {
	if s.Lost(h.SID) {
		return fmt.Errorf("%w: session %#x of %s is %v", ErrSessionLost, h.SID, h.Path, s)
	}
	if h.LoseOnDisconnect && s.State != zkapi.StateConnected {
		return fmt.Errorf("%w: %s", ErrSuspended, h.Path)
	}
	return nil
}

// Wait blocks until the hold ends and says why (as Check), or ctx ends.
func (h *Hold) Wait(ctx context.Context) error {
	for {
		if err := h.Check(); err != nil {
			return err
		}
		s := h.Q.Conn.Session()
		if err := h.checkSession(s); err != nil {
			return err
		}
		if _, err := h.Q.Conn.WaitSession(ctx, s.Seq); err != nil {
			return err
		}
	}
}

// Token returns the node's czxid, the fencing token, reading it once.
func (h *Hold) Token(ctx context.Context) (int64, error) {
	h.mu.Lock()
	t := h.token
	h.mu.Unlock()
	if t != 0 {
		return t, nil
	}
	var (
		st  zkapi.Stat
		ok  bool
		err error
	)
	for { // connection loss is transient; a lost session is not
		if err := h.Check(); err != nil {
			return 0, err
		}
		st, ok, err = h.Q.Conn.Exists(ctx, h.Path)
		if !errors.Is(err, zkapi.ErrConnectionLoss) {
			break
		}
		if err := AwaitLink(ctx, h.Q.Conn); err != nil {
			return 0, err
		}
	}
	if err != nil {
		return 0, err
	}
	if !ok || st.EphemeralOwner != h.SID {
		return 0, fmt.Errorf("%w: %s is gone", ErrSessionLost, h.Path)
	}
	h.mu.Lock()
	h.token = st.Czxid
	h.mu.Unlock()
	return st.Czxid, nil
}

// Fenced applies ops only if the node still exists, in one multi: a holder
// whose session has expired cannot write.
func (h *Hold) Fenced(ctx context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error) {
	if err := h.Check(); errors.Is(err, ErrReleased) {
		return nil, err
	}
	all := append([]zkapi.Op{zkapi.CheckOp{Path: h.Path, Version: zkapi.AnyVersion}}, ops...)
	res, err := h.Q.Conn.Multi(ctx, all...)
	if errors.Is(err, zkapi.ErrNoNode) && (len(res) == 0 || res[0].Err != nil) {
		return res, fmt.Errorf("%w: fenced write refused, %s is gone: %w", ErrSessionLost, h.Path, err)
	}
	if len(res) > 0 {
		res = res[1:]
	}
	return res, err
}

// Release deletes the node (through connection loss). It reports
// ErrSessionLost if the session ended while holding, so the caller knows
// its critical section may have overlapped another; a second Release
// returns nil.
func (h *Hold) Release(ctx context.Context) error {
	h.mu.Lock()
	if h.released {
		h.mu.Unlock()
		return nil
	}
	h.released = true
	h.mu.Unlock()
	lost := h.checkSession(h.Q.Conn.Session())
	if err := h.Q.Leave(ctx, h.Path, h.SID); err != nil {
		return err
	}
	if errors.Is(lost, ErrSessionLost) {
		return lost
	}
	return nil
}
