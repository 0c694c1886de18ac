// Package machine is the in-memory ZooKeeper 3.8 server state of fakezk:
// a deterministic state machine that answers as the real server does,
// down to sequence numbers, Stat fields, ACLs, watch triggers and session
// expiry, judged by the conformance scenarios and raw frames recorded
// from 3.8.0 (internal/conformance, internal/netserver).
//
// The Machine is the server's state and nothing else: no goroutines, no
// clock, no I/O, no randomness but its seeded shuffle, so the same inputs
// give the same answers and the same Fingerprint. Its purity test proves
// that from the build graph (`go list -deps`), not from a list of files.
//
// # Inputs
//
//   - CreateSession, Attach, Detach and CloseSession for sessions and the
//     connections they come over. A session is on one replica, by index:
//     0 is the leader, 1..Config.Followers the followers. Attach refuses a
//     client whose last seen zxid is ahead of that replica (the client then
//     tries another), and says ErrSessionExpired for a session that is
//     gone.
//   - Do for one request of a session: a proto.Request (Create, GetData,
//     Multi, AddWatch, SetACL...). The records live in package
//     internal/proto, which the wire codec, the clients and the simulator
//     share without linking the Machine.
//   - Tick to advance virtual time by one tick: it expires the detached
//     sessions whose timeout has passed and, every
//     Config.ContainerCheckTicks, reaps empty containers and expired TTL
//     nodes (ReapContainers does so at once).
//   - CatchUp to let a follower apply the leader's log up to a zxid;
//     until then it answers reads from its older state.
//
// # Outputs
//
//   - The Reply of each Do: the result, and the zxid of the replica that
//     answered (a client's last seen zxid comes from these).
//   - TakeNotified, the sessions owed watch events, and
//     TakeNotifications, a session's events in the order the real server
//     sends them. Every notification a request causes is queued before
//     the reply to any later request of that session.
//
// # Invariants
//
//   - Writes go to the leader and get one zxid each (a multi one for all
//     its ops); a follower serves its own session's write after catching
//     up with it, so a client reads its own writes.
//   - The leader is never behind: a session can always reconnect to it
//     unless it expired.
//   - Nothing the Machine does depends on the host: the transports bring
//     time (Tick), the network (Attach, Detach) and frame limits
//     (Config.MaxFrame is applied by the client and wire transports,
//     which never hand the Machine an oversized request).
//
// The simulator (package sim), the wire server (internal/netserver) and the
// in-process Server of package fakezk drive it: sim chooses the order of
// every step, internal/netserver follows the network, fakezk.Server serves
// unit tests behind a mutex. None adds behaviour the real server lacks.
package machine
