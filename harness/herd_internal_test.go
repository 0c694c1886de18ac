package harness

import (
	"testing"

	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/zoo"
)

// The herd limit of a read/write lock's release counts the readers it woke
// that did not have to wait again: those that held, gave up or crashed
// before waiting again, but not those that waited again, nor writers.
func TestHerdLimit_ReadersThatDidNotWaitAgain(t *testing.T) {
	const release, giveUp = 10, 20
	wake := func(c int, z int64, reader bool) received {
		return received{client: c, zxid: z, path: "/l/n", held: heldNone, reader: reader}
	}
	mark := func(c int, m linearize.Mode) received { return received{client: c, held: m} }
	run := &lockRun{giveUps: map[int64]bool{giveUp: true}, received: []received{
		wake(0, release, true), mark(0, linearize.Read), // held
		wake(1, release, true), mark(1, gaveUp), // deadline or session lost
		wake(2, release, true),                                       // crashed: nothing after
		wake(3, release, true), mark(3, waitsAgain), mark(3, gaveUp), // woken in vain
		wake(4, release, false), mark(4, gaveUp), // a writer: the one allowed
		wake(5, giveUp, true), mark(5, waitsAgain), // woken by a waiter that gave up
		wake(6, giveUp, true), mark(6, waitsAgain),
	}}
	limit := lockWorkload{Recipe: zoo.RWMutex()}.herdLimit(run)
	if got, want := limit(release), 1+3; got != want {
		t.Errorf("release: limit %d, want %d (one writer, and the readers that held, gave up or crashed)", got, want)
	}
	if got, want := limit(giveUp), 1+2; got != want {
		t.Errorf("give-up: limit %d, want %d (one writer, and every reader it woke)", got, want)
	}
	vs, _ := checkers.Wakeups(run.wakeups("/l"), limit)
	if len(vs) != 1 {
		t.Errorf("the release woke 5 clients, 4 could proceed: %v", vs)
	}
}
