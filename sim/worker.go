package sim

import (
	"iter"
	"sync"
)

// A worker is the coroutine a client's program runs on. The handoffs
// are coroutine switches (iter.Pull), not channel operations: a switch
// keeps both sides on the current thread and P, where a channel handoff
// readies the other goroutine and may wake an idle P to steal it, which
// cost 1.45x the CPU of a run with GOMAXPROCS=2 against 1.
//
// A worker runs one program after another: making a coroutine and
// growing its stack cost about as much as a tenth of a standard
// schedule's requests, so while a caller that makes many runs keeps
// workers (keepWorkers: the CLI's loop, the systematic search, the rapid
// checks), a run hands its workers back at its end for the next run's
// clients. A run made outside such a caller, or inside a wrapper
// (simhook.Bubble, whose goroutines must end within it), makes its own
// and ends them.
type worker struct {
	resume func() (struct{}, bool)
	end    func()
	yield  func(struct{}) bool
	body   func() // the client's program, recovering its panics; nil when idle
	dead   bool   // its goroutine ended (a program called runtime.Goexit)
}

func newWorker() *worker {
	w := &worker{}
	w.resume, w.end = iter.Pull(func(yield func(struct{}) bool) {
		w.yield = yield
		for {
			growStack() // again each time: a collection may have shrunk it while idle
			w.body()
			w.body = nil
			if !yield(struct{}{}) {
				return
			}
		}
	})
	return w
}

// workers are the idle workers kept for later runs while keepers > 0.
var workers struct {
	sync.Mutex
	keepers int
	idle    []*worker
}

// maxIdle bounds the workers kept: enough for every client of a run on
// each of a few dozen cores.
const maxIdle = 256

// keepWorkers makes runs keep their workers for later ones until
// release, which ends the idle workers once no caller keeps them any
// more: no goroutine outlives the callers that wanted them kept.
func keepWorkers() (release func()) {
	workers.Lock()
	workers.keepers++
	workers.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			workers.Lock()
			workers.keepers--
			var idle []*worker
			if workers.keepers == 0 {
				idle, workers.idle = workers.idle, nil
			}
			workers.Unlock()
			for _, w := range idle {
				w.end()
			}
		})
	}
}

// takeWorker returns an idle worker, or a new one.
func (s *Sim) takeWorker() *worker {
	if s.wrap == nil {
		workers.Lock()
		if n := len(workers.idle); n > 0 {
			w := workers.idle[n-1]
			workers.idle[n-1] = nil
			workers.idle = workers.idle[:n-1]
			workers.Unlock()
			return w
		}
		workers.Unlock()
	}
	return newWorker()
}

// giveBack keeps w, idle, for a later run, or ends it.
func (s *Sim) giveBack(w *worker) {
	if !w.dead && s.wrap == nil {
		workers.Lock()
		if workers.keepers > 0 && len(workers.idle) < maxIdle {
			workers.idle = append(workers.idle, w)
			workers.Unlock()
			return
		}
		workers.Unlock()
	}
	w.end()
}
