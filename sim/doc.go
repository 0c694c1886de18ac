// Package sim explores schedules of simulated ZooKeeper clients
// deterministically.
//
// Each client runs an ordinary Go program against a sim-backed zkapi.Conn
// in its own goroutine, but exactly one goroutine runs at a time: a client
// runs until its next zkapi call (a request, Watch.Wait, a persistent
// watch's Next, WaitSession, or Client.Sleep) and hands control back. The scheduler then picks the next
// event among those enabled, through a Chooser (rapid draws in tests, a
// seeded PRNG, or a recorded decision list when replaying):
//
//	send c      c's pending request reaches the server (fakezk.Machine)
//	recv c      the next message for c arrives: a watch notification
//	            (for one-shot and persistent watches alike), or the reply
//	            that resumes c
//	wake c      c's Watch.Wait, Next, WaitSession or Sleep can return
//	tick        virtual time advances one tickTime
//	faults      lose-request c, lose-reply c, disconnect c, reconnect c,
//	            crash c, pause c, abandon c, catchup f, reap
//
// Time is virtual (ticks); contexts made with Client.WithTimeout expire in
// virtual time. The same seed gives the same trace, byte for byte, in any
// binary. Nothing in a decision depends on the wall clock, on global
// randomness or on map order.
//
// # Using it
//
// Run runs client programs under a Config (faults, strategy, bounds) and a
// Chooser (NewSeeded; Record and Replay keep and replay its decisions,
// which Shrink minimizes); New and Sim.Run do the same in two steps, so
// that a Scenario's Start sees the run first. Observe and a Judge read
// the ensemble through Sim.State. The scheduler knows nothing of what the
// programs are for: the lock workload, its checkers and the go test
// runners are in package harness, one user of it, which also records
// the run's typed observations (requests applied, sessions expired,
// watches that woke a client) through internal/simhook, with the
// module's other needs that are no user's. Every run counts what it
// exercised (Coverage: which fault landed on which request kind, the
// session states, the watch events, and what never happened), in
// Result.Coverage and, summed over a search, Exploration.Exercised.
//
// Explore is the systematic strategy: it enumerates every schedule of a
// Scenario (programs and the Judge of each run) within Bounds (fault
// counts per kind, deviations from the default schedule, depth, early
// ticks) in Config.Flat mode, where each step is one choice among all
// enabled events and option 0 is the default schedule's. Time passing is
// one of the choices wherever something is due (an early tick, one
// deviation), so a timer can fire between any two events; a client that
// retries without waiting lets time pass (Config.SpinRequests). It re-runs the
// scenario for each schedule from a stack of choice points, cuts a run at
// a state whose fingerprint (Sim.fingerprint: the Machine, messages in
// flight, time, timers, budgets, each client's history hash) it has
// explored with as much budget left, uses sleep sets when deviations are
// unbounded, checks the judge's invariant after every step, and deepens
// pass by pass so that the first failure has the fewest deviations. Its
// result says what it covered and whether it exhausted the bounds. Shrink
// minimizes a failing decision list.
package sim
