package queue

import (
	"strconv"
	"sync/atomic"
)

// Attempts hands out the guids of one holder's successive attempts,
// "<id>.<n>" from n = 1: unique per attempt, so a lost create is found
// again by its own attempt and never taken for an earlier one's node. The
// zero value is ready; it is safe for concurrent use.
type Attempts struct{ n atomic.Int64 }

// Next returns the guid of the holder id's next attempt.
func (a *Attempts) Next(id string) string {
	return id + "." + strconv.FormatInt(a.n.Add(1), 10)
}

// NextIn is Next for a member of kind in q, with the prefix of the
// member's node path, q.Dir/kind-guid- (Request.Prefix): one string,
// the guid a part of it, so an acquisition allocates once for both.
func (a *Attempts) NextIn(q Queue, kind, id string) (guid, prefix string) {
	prefix = q.Dir + "/" + kind + "-" + id + "." + strconv.FormatInt(a.n.Add(1), 10) + "-"
	return prefix[len(q.Dir)+len(kind)+2 : len(prefix)-1], prefix
}
