// Package history records what a lock workload's clients did and saw, as
// a history a checker can judge: each call to a zkapi.Conn and its
// return (operation, path, result, error), each Watch.Wait and the event
// it returned (a wake-up), and the workload's own marks (acquire begun,
// held, given up, release begun and done), per client, each at the time
// a clock passed in gives: a real run passes a monotonic clock, a
// simulated one its virtual time, a test a fake.
//
// A Recorder hands out wrapping Conns (Recorder.Conn), or wraps a whole
// recipe.Lock (Recipe) so that every acquisition's Conn is recorded and
// marked. Queue turns the history into the operations of the lock
// queues at the given directories (linearize.QueueOp: nodes enqueued and
// dequeued, wake-ups), which linearize.Herd judges: on a real server
// no notification says which change fired it, so the check must find
// an assignment of wake-ups to changes, which is porcupine's search.
//
// What a client cannot see, the queue history leaves open rather than
// guesses: a create or delete whose reply was lost may have taken effect
// at any time after its call (a node of unknown name for a lost create),
// and the ephemeral nodes of a session end between their creation and
// the moment the client learns the session is gone (or the end of the
// history). Open intervals only widen what the search may assume, so
// they can hide a herd but not invent one.
package history
