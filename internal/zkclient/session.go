package zkclient

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/zkapi"
)

// Session is a client's view of its ZooKeeper session, as every client of
// a Machine keeps it: which session and replica it is on, the last zxid
// it has seen, the identities it added and its watch handles. It decides
// what the client does; the transport that owns it does the talking to
// the Machine and the waking of its program. It has no lock: its owner
// guards it.
//
// It moves between replicas as go-zookeeper v1.0.4 does (conn.go connect,
// loop and authenticate; dnshostprovider.go Next): every connect, the
// first after any disconnect included, goes to the next replica in turn,
// never back to the one it had; a replica that refuses the client (it is
// behind what the client has seen) is just a failed connect, and the next
// is tried. When a replica says the session expired, the client forgets
// its lastZxid (0) and opens the new session on the next replica. A
// connected client sees Disconnected before Expired, and every reply's
// zxid counts, SetWatches's included. (The simulator's older policy went
// with the traces recorded under it, which were recorded again; harness
// refuses such files.)
type Session[W any, P comparable] struct {
	ID       int64 // the current session
	Replica  int   // the replica the session is, or was last, connected to
	LastZxid int64 // the highest zxid the client has seen in a reply

	Watches    WatchTable[W]
	Persistent PersistentTable[P]

	replicas int             // the leader and its followers
	maxFrame int             // jute.maxbuffer
	creds    []proto.AddAuth // every auth that succeeded, re-sent on each connection
}

// NewSession returns the model of a client of a Machine configured by
// cfg (with its defaults filled in: Machine.Config) that will open its
// first session on replica.
func NewSession[W any, P comparable](cfg machine.Config, replica int) Session[W, P] {
	maxFrame := cmp.Or(cfg.MaxFrame, machine.DefaultMaxFrame)
	return Session[W, P]{replicas: cfg.Followers + 1, maxFrame: maxFrame, Replica: replica}
}

// SendBuffer is the longest request frame (its 4-byte length not
// counted) go-zookeeper can write: it encodes each request into a send
// buffer of 1.5 MiB, length included, and fails a longer one at once
// with zk.ErrShortBuffer (zkapi.ErrMarshalling), sending nothing and
// keeping its connection (measured on 3.8.0: conformance scenario sizes).
const SendBuffer = 1536*1024 - 4

// Send hands req to the Machine as the session's server reads it: a frame
// longer than jute.maxbuffer never reaches the Machine, since the server
// drops the connection unread; the session is detached and the client
// sees ErrConnectionLoss, with the server's zxid. A frame too long for
// the client's send buffer (SendBuffer) fails with ErrMarshalling before
// it is sent. The caller sends only while its connection is up.
func (s *Session[W, P]) Send(m *machine.Machine, req proto.Request) proto.Reply {
	if size := proto.FrameSize(req); s.refused(m, size) {
		return s.refuse(m, size)
	}
	return m.Do(s.ID, req)
}

// SendTo is Send with the reply written to *out, for a caller that keeps
// it: a reply is 208 bytes, and Send's is copied once more.
func (s *Session[W, P]) SendTo(m *machine.Machine, req proto.Request, out *proto.Reply) {
	if size := proto.FrameSize(req); s.refused(m, size) {
		*out = s.refuse(m, size)
		return
	}
	*out = m.Do(s.ID, req)
}

// refused reports whether a request frame of size bytes fails before
// the Machine sees it (see Send).
func (s *Session[W, P]) refused(m *machine.Machine, size int) bool {
	return size > SendBuffer || size > s.maxFrame && m.Alive(s.ID)
}

// refuse is Send's reply to a frame refused.
func (s *Session[W, P]) refuse(m *machine.Machine, size int) proto.Reply {
	if size > SendBuffer {
		return proto.Reply{Err: zkapi.ErrMarshalling}
	}
	m.Detach(s.ID)
	return proto.Reply{Zxid: m.ReplicaZxid(s.Replica), Err: zkapi.ErrConnectionLoss}
}

// Opened records the new session id the Machine gave on s.Replica. The
// client has seen no zxid of it yet, whatever the replica's: go-zookeeper
// sends lastZxidSeen 0 for a new session and learns from replies only.
func (s *Session[W, P]) Opened(id int64) {
	s.ID, s.LastZxid = id, 0
}

// Replied folds a reply into what the client has seen.
func (s *Session[W, P]) Replied(r proto.Reply) {
	s.Saw(r.Zxid)
}

// Saw folds the zxid of a reply into what the client has seen: Replied
// for a caller that keeps the reply, without copying it.
func (s *Session[W, P]) Saw(zxid int64) {
	s.LastZxid = max(s.LastZxid, zxid)
}

// Authed keeps an identity the server accepted, to re-send on every new
// connection as go-zookeeper does (resendZkAuth).
func (s *Session[W, P]) Authed(a proto.AddAuth) {
	a.Data = slices.Clone(a.Data)
	s.creds = append(s.creds, a)
}

// Creds are the identities to re-send, in the order they were added,
// first thing on a new connection.
func (s *Session[W, P]) Creds() []proto.AddAuth { return s.creds }

// Rewatch is the SetWatches a new connection of the same session sends
// after its auths, re-registering every watch; false if there is none.
func (s *Session[W, P]) Rewatch() (proto.SetWatches, bool) {
	if s.Watches.Len()+s.Persistent.Len() == 0 {
		return proto.SetWatches{}, false
	}
	return s.Persistent.Rewatch(s.Watches.SetWatches(s.LastZxid)), true
}

// Rewatched folds the reply to Rewatch's request in: its zxid counts, as
// every reply's does.
func (s *Session[W, P]) Rewatched(r proto.Reply) {
	s.Replied(r)
}

// errNoReplica is returned by Reconnect when every replica it may try
// refused it without saying the session expired; with the leader among
// them that breaks an invariant of the Machine (the leader is never
// behind a client).
var errNoReplica = errors.New("zkclient: no replica took the session back")

// Reconnect brings the session back on a new connection, calling attach
// for each replica the policy tries until one takes it (nil: s.Replica is
// now that one) or one says the session expired (zkapi.ErrSessionExpired:
// s.Replica is the one that said so; call Expired next). A replica behind
// the client refuses it (zkapi.ErrConnectionLoss) and is skipped.
//
// It tries each replica after the current one in turn, the current one
// last (as go-zookeeper does). The leader is among them and is never behind, so one
// round ends it.
func (s *Session[W, P]) Reconnect(attach func(replica int) error) error {
	var err error
	for i := 1; i <= s.replicas; i++ {
		r := (s.Replica + i) % s.replicas
		if err = attach(r); err == nil || errors.Is(err, zkapi.ErrSessionExpired) {
			s.Replica = r
			return err
		}
	}
	return fmt.Errorf("%w: %w", errNoReplica, err)
}

// Expired ends the session the client has learnt is gone: it returns the
// states its program sees, in order (a connected client first sees its
// connection drop, as go-zookeeper reports it), and every watch handle,
// which the caller ends with ErrSessionExpired. Then the caller opens a
// new session on s.Replica, which the client has moved on to the next
// replica.
func (s *Session[W, P]) Expired(connected bool) (states []zkapi.State, watches []W, persistent []P) {
	if connected {
		states = append(states, zkapi.StateDisconnected)
	}
	states = append(states, zkapi.StateExpired)
	s.Replica = (s.Replica + 1) % s.replicas
	return states, s.Watches.TakeAll(), s.Persistent.TakeAll()
}
