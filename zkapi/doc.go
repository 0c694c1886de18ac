// Package zkapi is the narrow ZooKeeper client interface that zksim's recipes
// are written against.
//
// Three implementations exist: fakezk's in-process Conn (ordinary unit
// tests), the simulator's Conn (deterministic schedule exploration, package
// sim) and the go-zookeeper adapter (package zkapi/gozk, real ensembles).
// Code that imports only zkapi runs unchanged on all three. All three
// also implement PersistentWatcher (ZooKeeper 3.6+'s addWatch), a second
// interface so that Conn stays what every ZooKeeper client offers.
//
// # ACLs
//
// Conn creates every node world:anyone with every permission. A recipe
// that needs ACLs or authentication asserts its Conn to ACLConn
// (CreateWithACL, AddAuth, GetACL, SetACL); fakezk's Conn and zkapi/gozk's
// implement it, the simulator's does not. CreateOp.ACL sets a node's ACL
// inside a Multi.
//
// # The seam
//
// Every point where a client can block is a method of Conn taking a
// context.Context: requests, waiting for a watch (Watch.Wait, or a
// persistent watch's Next) and waiting for a session change
// (Conn.WaitSession). A deterministic scheduler can only
// order what it sees, so code written against zkapi must not block on bare
// channels, start timers or goroutines of its own, or read the wall clock.
//
// # Errors
//
// Server outcomes are the sentinel errors below, named after ZooKeeper's
// codes; a Conn wraps them with the operation and path ("create /a/b:
// zkapi: node does not exist"). Compare them with errors.Is; Name gives a
// stable word for printing one. ErrConnectionLoss is ambiguous, as in
// ZooKeeper: the request may or may not have been applied.
//
// # Sessions
//
// A Conn talks for one session at a time. When the server expires it, the
// Conn reports StateExpired for that session; implementations that, like
// go-zookeeper, open a new session on the same Conn report it under a new
// SessionID. Code that owns ephemeral nodes must compare session IDs, not
// merely wait for StateConnected.
//
// # Extensions
//
// What only some recipes need sits on second interfaces, which a Conn may
// also implement, so that Conn stays narrow: TTLCreator creates TTL nodes
// (fakezk's and go-zookeeper's Conns implement it; a server needs
// zookeeper.extendedTypesEnabled, fakezk.Config.ExtendedTypes).
package zkapi
