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
