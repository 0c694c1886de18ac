package queue

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// ErrWouldBlock is what a try-acquire answers when it finds the lock held.
var ErrWouldBlock = recipe.ErrWouldBlock

// Rule decides, for the member at index i of the queue, whether it holds
// the lock, and if not which member's node to wait on. marked holds the
// names of nodes seen with a data version above 0: lock nodes never change
// their data except to mark a downgrade (rwlock).
type Rule func(ms []Member, i int, marked map[string]bool) (waitOn string, granted bool)

// Predecessor is the exclusive rule: the first member holds, every other
// one waits for the member just before it (one waiter per node, no herd).
func Predecessor(ms []Member, i int, _ map[string]bool) (string, bool) {
	if i == 0 {
		return "", true
	}
	return ms[i-1].Name, false
}

// Reader is the rule for a read member of a read/write queue whose write
// members are of kind writeKind: it holds when no write member precedes
// it, except write members marked as downgraded, and otherwise waits for
// the nearest write member ahead. A writer's release so wakes exactly the
// readers it was blocking.
func Reader(writeKind string) Rule {
	return func(ms []Member, i int, marked map[string]bool) (string, bool) {
		for j := i - 1; j >= 0; j-- {
			if ms[j].Kind() == writeKind && !marked[ms[j].Name] {
				return ms[j].Name, false
			}
		}
		return "", true
	}
}

// Mode says whether Enqueue waits for its turn.
type Mode int

// Modes of Enqueue.
const (
	// Wait waits until the rule grants or ctx ends.
	Wait Mode = iota
	// Try fails with ErrWouldBlock at once if the rule does not grant.
	Try
)

// Request is one attempt to join a queue and hold its place.
type Request struct {
	// Kind and GUID name the member's node "<Kind>-<GUID>-<seq>"; the
	// GUID is unique per attempt, so a lost create can be found again.
	Kind, GUID string
	// Data is stored in the node.
	Data []byte
	// Kinds are the member kinds the queue is made of; other names in
	// the directory are foreign and ignored.
	Kinds []string
	// Rule says whether a member holds and whom it waits on.
	Rule Rule
	Mode Mode
	// LoseOnDisconnect makes the Hold suspended while disconnected.
	LoseOnDisconnect bool
	// Steps are the recipe's steps; the zero Steps is the correct one.
	Steps Steps
}

// Enqueue joins the queue as r.Kind/r.GUID and waits until r.Rule grants
// (or, with Try, fails with ErrWouldBlock at once). On any failure
// r.Steps.Abandon has the node, which the correct step removes through
// connection loss before Enqueue returns.
func Enqueue(ctx context.Context, q Queue, r Request) (*Hold, error) {
	h := new(Hold)
	if err := EnqueueInto(ctx, q, r, h); err != nil {
		return nil, err
	}
	return h, nil
}

// EnqueueInto is Enqueue that fills h, a zero Hold, rather than a new
// one: a recipe's lease that embeds its Hold by value is then one
// allocation per acquisition, not two. If it fails, h is not held.
func EnqueueInto(ctx context.Context, q Queue, r Request, h *Hold) error {
	sorted := r.Steps.Order == nil // listings come in the correct order
	r.Steps = r.Steps.orDefault()
	path, sid, err := q.join(ctx, &r)
	if err != nil {
		return err
	}
	// Field by field, not *h = Hold{...}: h is zero, and the literal
	// wrote the whole Hold (its listing array too), ten cache lines of
	// memory the allocation had just handed out.
	h.Q, h.Path, h.SID, h.LoseOnDisconnect, h.release = q, path, sid, r.LoseOnDisconnect, r.Steps.Release
	if err := waitTurn(ctx, h, &r, sorted); err != nil {
		if lerr := r.Steps.Abandon(ctx, h, err); lerr != nil {
			err = errors.Join(err, lerr)
		}
		return err
	}
	return nil
}

// waitTurn lists the queue until rule grants, watching the node rule names
// between listings. Every wake-up lists again: the node that went may have
// given up rather than released. sorted says that r.Steps.Order is the
// correct one, the order a listing already comes in. Its rare outcomes
// are made by functions of their own (lostWhileWaiting, vanished), so
// that the loop every wait runs spans fewer cache lines.
func waitTurn(ctx context.Context, h *Hold, r *Request, sorted bool) error {
	q := h.Q
	var marked map[string]bool // made on the first mark: most waits see none
	ms := h.listed[:0]         // the last listing, whose array the next one reuses
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s := q.Conn.Session(); s.Lost(h.SID) {
			return lostWhileWaiting(s)
		}
		var err error
		ms, err = q.listInto(ctx, ms, r.Kinds)
		if err != nil && errors.Is(err, zkapi.ErrConnectionLoss) {
			if err := AwaitLink(ctx, q.Conn); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if !sorted {
			slices.SortStableFunc(ms, r.Steps.Order)
		}
		i := Index(ms, q.Dir, h.Path)
		if i < 0 {
			return vanished(h.Path)
		}
		if err := CheckSeq(ms[i], q.Dir); err != nil {
			return err
		}
		waitOn, granted := r.Rule(ms, i, marked)
		if granted {
			// The listing may have been answered after the client gave
			// its session up (a client-side timeout, an abandoned
			// handle): never hand out a lease on a session already lost.
			if s := q.Conn.Session(); s.Lost(h.SID) {
				return lostWhileWaiting(s)
			}
			return nil
		}
		if r.Mode == Try {
			return ErrWouldBlock
		}
		// A rule that still waits on a node it knows is marked waits for
		// real; otherwise a marked node is first reported to the rule.
		// (Most waits have no marks: no map to look in.)
		wake, err := r.Steps.Watch(ctx, h, q.Path(waitOn), marked != nil && marked[waitOn])
		if err != nil {
			return err
		}
		switch wake {
		case Marked:
			marked = mark(marked, waitOn)
		case Granted:
			return nil // on the step's word alone
		}
	}
}

// lostWhileWaiting is waitTurn's error when the session s no longer owns
// the waiter's node.
//
//go:noinline
func lostWhileWaiting(s zkapi.Session) error {
	return fmt.Errorf("%w while waiting (%v)", ErrSessionLost, s)
}

// vanished is waitTurn's error when the waiter's node at p is not in
// the listing.
//
//go:noinline
func vanished(p string) error {
	return fmt.Errorf("%w: %s vanished while waiting", ErrSessionLost, p)
}

// mark adds name to the marked nodes (made if nil) and returns them.
//
//go:noinline
func mark(marked map[string]bool, name string) map[string]bool {
	if marked == nil {
		marked = map[string]bool{}
	}
	marked[name] = true
	return marked
}
