package queue

import (
	"cmp"
	"context"
	"errors"
	"strings"

	"github.com/zksim/zksim/zkapi"
)

// Steps are the parts of the queue recipe that a variant may replace. A
// nil field is the correct step, so the zero Steps is the recipe as
// lock.Mutex and rwlock run it (DefaultSteps spells it out). The broken
// recipes of package zoo are this queue with one field set: each planted bug
// is exactly that field.
//
// The Rule is not a step: it is what the lock is (exclusive, or a
// reader's share), chosen per Request.
type Steps struct {
	// FindLost looks, after a create failed with connection loss, for the
	// node the create may have made, and returns its path and owning
	// session, or "" to create again. Correct: sync, list, take the
	// node carrying r.GUID that Owns says is the current session's.
	FindLost func(ctx context.Context, q Queue, r Request) (path string, sid int64, err error)
	// Owns says whether a node found by FindLost, whose ephemeralOwner is
	// owner, is the client's, and which session holds it: sid is the
	// session current when the lookup began. Correct: owner == sid, held
	// by sid (a node of an earlier, dying session is not the client's:
	// CURATOR-498).
	Owns func(q Queue, owner, sid int64) (holder int64, mine bool)
	// Order is the queue order of members. Correct: by sequence number.
	Order func(a, b Member) int
	// Watch waits, for the member h that Rule did not grant, on the node
	// at p that Rule named, and says what it saw. Correct: a data watch
	// on p alone (no herd), returning at once if p is gone or marked;
	// the caller lists again after every wake-up.
	Watch func(ctx context.Context, h *Hold, p string, waitIfMarked bool) (Wake, error)
	// Abandon runs when waiting failed with cause. Correct: remove the
	// node, through connection loss, whatever cause is (CURATOR-202).
	Abandon func(ctx context.Context, h *Hold, cause error) error
	// Release removes a held member's node and says whether it was
	// already gone. Correct: delete the member's own node, through
	// connection loss, until it or its session is gone.
	Release func(ctx context.Context, h *Hold) (gone bool, err error)
}

// Wake is what a Watch step saw.
type Wake int

// What a Watch saw.
const (
	// Changed: the node changed or is gone; list again.
	Changed Wake = iota
	// Marked: the node carries a mark (a data version above 0); the
	// rule hears of it on the next listing.
	Marked
	// Granted: hold now, on the step's word alone: no listing and no
	// session check follow. No correct step answers it: only a listing,
	// under the session that owns the node, says who holds.
	Granted
)

// DefaultSteps returns the correct steps, every field set.
func DefaultSteps() Steps {
	return Steps{
		FindLost: findOwn,
		Owns:     sameSession,
		Order:    bySeq,
		Watch:    watchGone,
		Abandon:  leaveOnFailure,
		Release:  deleteOwn,
	}
}

// orDefault fills the nil fields of s with the correct steps.
func (s Steps) orDefault() Steps {
	// Field by field rather than by reflection: Enqueue and Join call it
	// on every acquisition, and reflection allocated. A test checks that
	// every field is covered.
	if s.FindLost == nil {
		s.FindLost = findOwn
	}
	if s.Owns == nil {
		s.Owns = sameSession
	}
	if s.Order == nil {
		s.Order = bySeq
	}
	if s.Watch == nil {
		s.Watch = watchGone
	}
	if s.Abandon == nil {
		s.Abandon = leaveOnFailure
	}
	if s.Release == nil {
		s.Release = deleteOwn
	}
	return s
}

func sameSession(_ Queue, owner, sid int64) (int64, bool) { return sid, owner == sid }

// bySeq orders members by sequence number, and by name for equal ones
// (which List refuses).
func bySeq(a, b Member) int {
	if c := cmp.Compare(a.Seq, b.Seq); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// watchGone returns when the node at p changes or is found gone; a data
// watch, so a node already gone leaves no watch behind. A node found
// marked (data version above 0) is reported at once, without waiting.
func watchGone(ctx context.Context, h *Hold, p string, waitIfMarked bool) (Wake, error) {
	_, st, w, err := h.Q.Conn.GetW(ctx, p)
	switch {
	case err != nil && (errors.Is(err, zkapi.ErrNoNode) || errors.Is(err, zkapi.ErrConnectionLoss)):
		return Changed, nil
	case err != nil:
		return Changed, err
	case st.Version > 0 && !waitIfMarked:
		return Marked, nil
	}
	_, err = h.WaitWatch(ctx, w)
	return Changed, err
}

// WaitWatch waits for w to fire, unless the session that owns h's node
// was lost by now: a watch set after that is a new session's, which
// nothing would end, and whoever released would wake a waiter that can
// only give up. It then returns the zero Event at once; the caller's next
// round reports the loss.
func (h *Hold) WaitWatch(ctx context.Context, w zkapi.Watch) (zkapi.Event, error) {
	if h.Q.Conn.Session().Lost(h.SID) {
		return zkapi.Event{}, nil
	}
	return w.Wait(ctx)
}

func leaveOnFailure(ctx context.Context, h *Hold, _ error) error {
	return h.Q.Leave(ctx, h.Path, h.SID)
}

func deleteOwn(ctx context.Context, h *Hold) (bool, error) {
	return h.Q.leave(ctx, h.Path, h.SID)
}
