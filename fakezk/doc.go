// Package fakezk is an in-memory ZooKeeper 3.8 for unit tests: the
// deterministic server state the simulator also drives (package sim),
// behind a mutex, with in-process connections to it.
//
// A Server holds the state; each Conn is a zkapi.Conn (with
// zkapi.ACLConn, zkapi.PersistentWatcher and zkapi.TTLCreator) that
// answers as the go-zookeeper stack does against a real server: it moves
// on to the next replica at every reconnect, opens a new session by
// itself when its old one expired, and re-sends its identities and
// watches on every new connection. Those decisions are the client model
// the simulator's clients share; the Conn only locks, sends and wakes its
// callers.
//
// Nothing waits: a request returns once the server has answered it, and
// events are delivered before the next call returns. Time moves only by
// Server.Tick; faults come from Server.Expire, Disconnect and Reconnect,
// and from an Interceptor (a lost request, or a lost reply after the
// request was applied: the lost create). Server.Inspect and WaitUntil
// read the state as a State: the nodes and the live sessions.
//
// The wire server (zksim serve) drives the same state over TCP for any
// ZooKeeper client.
package fakezk
