// Package proto is ZooKeeper's client protocol as records: the requests a
// session sends (Create, GetData, Multi, AddWatch, SetACL...), the Reply
// a server answers with, the Notification of a fired watch, and the size
// each request takes on the wire (FrameSize).
//
// It is the leaf every side of the protocol imports, as raft keeps its
// messages in raftpb: the in-memory server (internal/machine) serves these
// records, the jute codec (internal/wire) reads and writes them as frames,
// the clients of the fake (fakezk, sim) send them, and the real client
// (zkapi/gozk) and the session killer (package expire) reach the codec
// without linking the fake. It imports only zkapi and the standard
// library, holds no state and does no I/O.
//
// The set of requests is closed: Request has an unexported method, so a
// switch over its types (as the Machine's dispatch, the codec's encoder
// and an Interceptor of fakezk do) sees every case. Each record has a
// deterministic String, one line, as traces print it.
package proto
