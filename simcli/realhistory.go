package simcli

import (
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/history"
	"github.com/zksim/zksim/recipe"
)

// realHistory is the history a real run records for the herd check:
// every acquisition's calls, returns and wake-ups, on a monotonic clock
// (nanoseconds since the run began). A real server's notifications say
// not which change fired them, so the check is porcupine's search for
// an assignment of wake-ups to changes (checkers.QueueHerd).
type realHistory struct {
	rec   *history.Recorder
	start time.Time
}

func newRealHistory() *realHistory {
	h := &realHistory{start: time.Now()}
	h.rec = history.New(h.now)
	return h
}

// now is the history's clock: nanoseconds since the run began.
func (h *realHistory) now() int64 { return int64(time.Since(h.start)) }

// recipe is r recording its acquisitions.
func (h *realHistory) recipe(r recipe.Lock) recipe.Lock { return history.Recipe(r, h.rec) }

// herd judges the wake-ups at the lock dir (and the recipe's other
// directories): herd violations, and Undecided notes apart.
func (h *realHistory) herd(r recipe.Lock, dir string) (vs, notes []check.Violation) {
	dirs := []string{dir}
	if r.Dirs != nil {
		dirs = r.Dirs(dir)
	}
	for _, v := range checkers.QueueHerd(history.Queue(h.rec.Entries(), dirs)) {
		if checkers.Note(v.Class) {
			notes = append(notes, v)
		} else {
			vs = append(vs, v)
		}
	}
	return vs, notes
}
