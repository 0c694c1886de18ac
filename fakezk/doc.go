// Package fakezk is an in-memory ZooKeeper 3.8 for unit tests: a
// machine.Machine (package fakezk/machine, the deterministic server state)
// behind a mutex, with in-process connections to it.
//
// Server and Conn are the in-process driver of the Machine: a Server owns
// a Machine behind a mutex, and each Conn is a zkapi.Conn (with
// zkapi.ACLConn, zkapi.PersistentWatcher and zkapi.TTLCreator) that
// answers as the go-zookeeper stack does against a real server. Nothing
// waits: a request returns once the Machine has answered it, and events
// are delivered before the next call returns. Time moves only by
// Server.Tick; faults come from Server.Expire, Partition and Heal, and from
// an Interceptor (a lost request, or a lost reply after the request was
// applied: the lost create).
//
// The simulator (package sim) and the wire server (fakezk/server) drive
// the same Machine in their own way; see package machine for how.
package fakezk
