// Package nemesis injects, into a run on real ZooKeeper servers, the
// faults the simulator injects into simulated ones, under the same
// -faults names, and the faults of a real ensemble's members.
//
// # Client faults: a proxy per client
//
// Each client dials its servers through its own [Proxy], which listens
// once for each server address, so go-zookeeper's rotation over the
// address list on reconnect reaches every server through it. The proxy
// understands ZooKeeper's framing (a 4-byte big-endian length, the
// connect request and response first each way, then requests and
// replies with their xids), so a fault strikes one request:
//
//   - lose-request: the request is dropped before the server and the
//     connection cut: nothing applied, the client sees connection loss.
//   - lose-reply: the request is forwarded and the connection cut when
//     its reply comes back: applied, yet the client sees connection loss
//     (the lost create).
//   - disconnect: the connection is cut just after a reply; the client
//     reconnects, to any server, with its session.
//   - pause: the client's traffic is held both ways for twice its session
//     timeout, so the server expires the session by silence.
//   - crash: the proxy cuts the client off for good (a new connection is
//     closed at once) and the run stops the client; its session lingers
//     until it expires.
//
// Requests are counted per proxy (pings, auth, watch re-registration and
// the session's close are not requests), and each fault of a schedule
// comes at a request number: the one moment a run can name on a real
// system. A scheduled lost request or reply strikes the first write from
// that moment on: a read lost either way is only a disconnect, while a
// write lost before or after the server is the difference a recipe must
// handle. expire closes a holder's session by its credentials (package
// expire), as before.
//
// # Member faults
//
// pause-member and kill-member stop a member with SIGSTOP (then SIGCONT)
// or kill it (then restart it), through the [Members] interface a
// started ensemble implements; they are refused on servers the run did
// not start. The ensemble's members reach each other through relays of
// its own (package ensemble), which gives two faults on the links
// between members, refused on a standalone server too:
//
//   - isolate-leader: the member leading when it strikes is cut off from
//     the others (its quorum and election connections closed, new ones
//     hung up on) for the drawn time, then healed: the others elect a
//     new leader, and the old one stops serving until it rejoins.
//   - lag-member: a follower's stream from its leader (proposals,
//     commits, pings) is held for 0.5 to 1.5 s, then released: it stays
//     in the quorum, below syncLimit x tickTime (2.5 s), and its clients
//     read an old tree meanwhile (stale reads; their own writes wait).
//     The drawn member, or the one after the leader when none is drawn
//     or the drawn one leads.
//
// One member fault is under way at a time.
//
// # Schedules
//
// [Parse] reads -faults and refuses, with the reason, a kind a real run
// cannot inject (reap, reorder, abandon). [Draw] draws a
// schedule from the run's seed: which client or member, and at which
// request. The same seed gives the same schedule; what it does to a real
// system's timing is not reproducible, which is why [Nemesis] logs every
// injection with its time since the run began.
package nemesis
