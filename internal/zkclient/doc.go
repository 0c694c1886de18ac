// Package zkclient is the client side of a fakezk Machine that every
// client of it shares: the in-process fakezk.Conn and the simulator's
// sim.Conn. It decides, and never waits: how a zkapi call maps to a
// proto.Request and its Reply back (Calls over a Transport), which
// paths the client refuses before sending (CheckPath,
// RefuseMultiCreates), and which watch handles an event fires or a
// reconnect re-registers (WatchTable, PersistentTable, ReplyWatch).
//
// Its tables are generic over the handle types, so each transport keeps
// its own way of waiting (channels in fakezk, parked goroutines in sim)
// while the rules stay one. Like the Machine it is pure: no clock, no
// goroutines, map keys sorted wherever their order can reach a reply.
package zkclient
