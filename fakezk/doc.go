// Package fakezk is an in-memory ZooKeeper 3.8: a deterministic state
// machine that answers as the real server does, down to sequence numbers,
// Stat fields, ACLs, watch triggers and session expiry, judged by the
// conformance scenarios and raw frames recorded from 3.8.0
// (internal/conformance, fakezk/server).
//
// It has two layers.
//
// The Machine is the server's state and nothing else: no goroutines, no
// clock, no I/O, no randomness but its seeded shuffle, so the same inputs
// give the same answers and the same Fingerprint. Drive it with:
//
//   - CreateSession, Attach, Detach and CloseSession for sessions and the
//     connections they come over (a server index: 0 is the leader,
//     1..Config.Followers the followers, which see the leader's writes
//     when CatchUp says so);
//   - Do for one request of a session (the Request types of this package:
//     Create, GetData, Multi, AddWatch, SetACL...), answered by a Reply;
//   - Tick to advance virtual time by one tick, which expires the sessions
//     whose timeout has passed and, every Config.ContainerCheckTicks,
//     reaps empty containers and expired TTL nodes;
//   - TakeNotified and TakeNotifications for the watch events each
//     session is owed, in the order the real server sends them.
//
// The simulator (package sim) and the wire server (fakezk/server) are
// such drivers: sim chooses the order of every step, fakezk/server
// follows the network. Neither adds behaviour the real server lacks.
//
// Server and Conn are the in-process driver for a unit test: a Server
// owns a Machine behind a mutex, and each Conn is a zkapi.Conn (with
// zkapi.ACLConn, zkapi.PersistentWatcher and zkapi.TTLCreator) that
// answers as the go-zookeeper stack does against a real server. Nothing
// waits: a request returns once the Machine has answered it, and events
// are delivered before the next call returns. Time moves only by
// Server.Tick; faults come from Server.Expire, Partition and Heal, and from
// an Interceptor (a lost request, or a lost reply after the request was
// applied: the lost create).
package fakezk
