package queue

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// Errors about a held node (package recipe's).
var (
	ErrSuspended = recipe.ErrSuspended
	ErrReleased  = recipe.ErrReleased
)

// Hold is a member's node while its owner holds it: the lease state every
// lock recipe shares. Its methods are recipe.Lease's: a recipe's lease
// type embeds a *Hold and replaces only what it does differently.
type Hold struct {
	Q                Queue
	Path             string
	SID              int64 // the session that owns the node
	LoseOnDisconnect bool

	release func(ctx context.Context, h *Hold) (gone bool, err error) // Steps.Release; nil: the correct one

	// listed is the array of waitTurn's first listings: a queue of a
	// few members is listed with no allocation of its own (the Hold is
	// part of its recipe's lease). Six: the standard workload's listings
	// hold at most its 5 clients' nodes and a stale one.
	listed [6]Member

	fence [2]zkapi.Op // the ops of the first fenced write (fenceOps)

	mu         sync.Mutex
	token      int64
	released   bool
	fencedOnce bool            // beside released, not after fence: a lock.Mutex fits in 480 bytes
	done       context.Context // see releasedCtx
	markDone   context.CancelFunc
}

// Node is the path of the held node (recipe.Lease).
func (h *Hold) Node() string { return h.Path }

// Session is the id of the session that owns the node.
func (h *Hold) Session() int64 { return h.SID }

// Check reports, without blocking, whether the node is still held: nil,
// ErrReleased, ErrSessionLost, or ErrSuspended (disconnected, with
// LoseOnDisconnect).
func (h *Hold) Check() error { return h.check(h.Q.Conn.Session()) }

// check is Check as of the session snapshot s.
func (h *Hold) check(s zkapi.Session) error {
	if h.isReleased() {
		return ErrReleased
	}
	return h.checkSession(s)
}

func (h *Hold) checkSession(s zkapi.Session) error {
	if s.Lost(h.SID) {
		return h.lost(s)
	}
	if h.LoseOnDisconnect && s.State != zkapi.StateConnected {
		return h.suspended()
	}
	return nil
}

// lost is checkSession's error when s has lost h's session; made out of
// line (as suspended), since every fenced write and release checks.
//
//go:noinline
func (h *Hold) lost(s zkapi.Session) error {
	return fmt.Errorf("%w: session %#x of %s is %v", ErrSessionLost, h.SID, h.Path, s)
}

//go:noinline
func (h *Hold) suspended() error { return fmt.Errorf("%w: %s", ErrSuspended, h.Path) }

// Wait blocks until the hold ends and says why (as Check), or ctx ends.
// It steps through the session's snapshots one by one, as WaitSession
// hands them over, so a disconnection the client has already recovered
// from still ends the hold under LoseOnDisconnect; and a Release from
// another goroutine wakes it with ErrReleased.
func (h *Hold) Wait(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(h.releasedCtx(), cancel)()
	s := h.Q.Conn.Session()
	for {
		if err := h.check(s); err != nil {
			return err
		}
		next, err := h.Q.Conn.WaitSession(ctx, s.Seq)
		if err != nil {
			if h.isReleased() {
				return ErrReleased
			}
			return err
		}
		s = next
	}
}

// releasedCtx is done once the hold is released: Release's broadcast to
// every Wait, with no channel of the recipe's own for a scheduler to miss
// (Wait blocks only in WaitSession, which ends with its ctx).
func (h *Hold) releasedCtx() context.Context {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done == nil {
		h.done, h.markDone = context.WithCancel(context.Background())
		if h.released {
			h.markDone()
		}
	}
	return h.done
}

func (h *Hold) isReleased() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.released
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
		if err == nil || !errors.Is(err, zkapi.ErrConnectionLoss) {
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
	// A session known lost writes nothing, whatever the link does: the
	// fence is for the loss the client has not heard of yet. (Check's
	// other answer, suspended, writes.)
	if err := h.Check(); errors.Is(err, ErrReleased) || errors.Is(err, ErrSessionLost) {
		return nil, err
	}
	all := h.fenceOps(1 + len(ops))
	all = append(append(all, zkapi.CheckOp{Path: h.Path, Version: zkapi.AnyVersion}), ops...)
	res, err := h.Q.Conn.Multi(ctx, all...)
	if err != nil && errors.Is(err, zkapi.ErrNoNode) && (len(res) == 0 || res[0].Err != nil) {
		return res, fmt.Errorf("%w: fenced write refused, %s is gone: %w", ErrSessionLost, h.Path, err)
	}
	if len(res) > 0 {
		res = res[1:]
	}
	return res, err
}

// fenceOps returns an empty slice with room for n ops, for a fenced
// write's multi: the Hold's own array for the first write of one op
// (a holder usually writes once), a new one otherwise. The array is
// never handed out twice, as the multi that used it may be kept.
func (h *Hold) fenceOps(n int) []zkapi.Op {
	h.mu.Lock()
	first := !h.fencedOnce && n <= len(h.fence)
	h.fencedOnce = true
	h.mu.Unlock()
	if first {
		return h.fence[:0]
	}
	return make([]zkapi.Op, 0, n) // one allocation, not a grown one
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
	if h.markDone != nil {
		h.markDone()
	}
	h.mu.Unlock()
	lost := h.checkSession(h.Q.Conn.Session())
	release := h.release
	if release == nil {
		release = deleteOwn
	}
	gone, err := release(ctx, h)
	if err != nil {
		return err
	}
	if lost != nil && errors.Is(lost, ErrSessionLost) {
		return lost
	}
	if gone {
		// The session's loss can reach the server before the client:
		// a node found gone was lost while held, whatever the session
		// snapshot says yet.
		return fmt.Errorf("%w: %s was gone at release", ErrSessionLost, h.Path)
	}
	return nil
}
