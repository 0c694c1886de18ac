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

// NextBase is Next for a member of kind in the queue at dir: it returns
// the guid and the Request's Base, "<dir>/<kind>-<guid>-", built in one
// allocation with the guid a part of it (a lock builds both on every
// acquisition).
func (a *Attempts) NextBase(dir, kind, id string) (base, guid string) {
	var num [20]byte
	n := strconv.AppendInt(num[:0], a.n.Add(1), 10)
	base = dir + "/" + kind + "-" + id + "." + string(n) + "-"
	start := len(dir) + len(kind) + 2
	return base, base[start : len(base)-1]
}
