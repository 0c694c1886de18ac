// Package machine is the in-memory ZooKeeper 3.8 server state of fakezk:
// a deterministic state machine that answers as the real server does,
// down to sequence numbers, Stat fields, ACLs, watch triggers and session
// expiry, judged by the conformance scenarios and raw frames recorded
// from 3.8.0 (internal/conformance, fakezk/server).
//
// The Machine is the server's state and nothing else: no goroutines, no
// clock, no I/O, no randomness but its seeded shuffle, so the same inputs
// give the same answers and the same Fingerprint. Its purity test proves
// it from the build graph (`go list -deps`). Drive it with:
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
// The simulator (package sim), the wire server (fakezk/server) and the
// in-process Server of package fakezk are such drivers: sim chooses the
// order of every step, fakezk/server follows the network. None adds
// behaviour the real server lacks.
package machine
