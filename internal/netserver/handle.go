package netserver

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/zkapi"
)

// connect answers a ConnectRequest as ZooKeeperServer.processConnectRequest
// does: a new session, a resumed one, or a refusal. False ends the
// connection.
func (s *Server) connect(c *conn, req wire.ConnectRequest) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if !s.serving() {
		// A member without quorum (LOOKING) has no ZooKeeperServer: it
		// closes the connection without an answer.
		s.logf("%s: refusing session request: no quorum", c.nc.RemoteAddr())
		return false
	}
	if zxid := s.m.ReplicaZxid(c.replica); req.LastZxidSeen > zxid {
		// The client has seen a newer state than this server's: it must
		// try another server, so the server hangs up without a reply.
		s.logf("%s: refusing session request: client has seen zxid %#x, ours is %#x",
			c.nc.RemoteAddr(), req.LastZxidSeen, zxid)
		return false
	}
	resp := wire.ConnectResponse{}
	if req.SessionID == 0 {
		info, err := s.m.CreateSession(c.replica, int64(req.TimeoutMs))
		if err != nil {
			panic(fmt.Sprintf("netserver: replica %d checked at accept: %v", c.replica, err))
		}
		resp.SessionID, resp.TimeoutMs = info.ID, int32(info.TimeoutMs)
		s.m.SetAddress(info.ID, c.ip)
		s.logf("%s: new session %#x, timeout %d ms", c.nc.RemoteAddr(), info.ID, info.TimeoutMs)
	} else if !s.resume(c, req) {
		s.logf("%s: refusing session %#x: expired or wrong password", c.nc.RemoteAddr(), req.SessionID)
		c.send(wire.AppendConnectResponse(nil, wire.ConnectResponse{Passwd: make([]byte, wire.PasswdLen)}, req.HasReadOnly))
		c.closeAfterFlush()
		return false
	} else {
		resp.SessionID, resp.TimeoutMs = req.SessionID, int32(s.m.SessionTimeout(req.SessionID))
		s.logf("%s: resumed session %#x, timeout %d ms", c.nc.RemoteAddr(), req.SessionID, resp.TimeoutMs)
	}
	resp.Passwd = s.passwd(resp.SessionID)
	c.session, c.lastHeard, c.readOnlyFlag = resp.SessionID, time.Now(), req.HasReadOnly
	s.bySession[c.session] = c
	c.send(wire.AppendConnectResponse(nil, resp, req.HasReadOnly))
	// A resumed session may hold notifications queued while no connection
	// was bound to it, which deliver no longer lists.
	for _, n := range s.m.TakeNotifications(c.session) {
		c.sendNotification(n, s.delayFor(c.session))
	}
	s.deliver()
	return true
}

// resume re-attaches a live session whose password matches, with the
// timeout negotiated anew. The connection that held the session is closed
// first, whatever the password (ZooKeeper closes it before checking), and
// the session lives on. An abandoned session (Abandon) is refused as if it
// had expired, and lives on too.
func (s *Server) resume(c *conn, req wire.ConnectRequest) bool {
	id := req.SessionID
	if old := s.bySession[id]; old != nil {
		s.unbind(old)
		old.closeAfterFlush()
	}
	if !s.m.Alive(id) || !bytes.Equal(req.Passwd, s.passwd(id)) || s.abandoned[id] {
		return false
	}
	if err := s.m.Attach(id, c.replica, req.LastZxidSeen); err != nil {
		return false
	}
	s.m.Renegotiate(id, int64(req.TimeoutMs))
	s.m.SetAddress(id, c.ip)
	return true
}

// passwd is the session's password: HMAC-SHA256 of the id under the
// Server's random key, so that it cannot be derived from the id, or with
// SeededPasswords a function of the seed and the id, so runs repeat.
func (s *Server) passwd(id int64) []byte {
	if s.pwKey != nil {
		mac := hmac.New(sha256.New, s.pwKey)
		mac.Write(binary.BigEndian.AppendUint64(nil, uint64(id)))
		return mac.Sum(nil)[:wire.PasswdLen]
	}
	x := uint64(id) ^ s.m.Config().Seed ^ 0x7a6b73696d
	p := make([]byte, 0, wire.PasswdLen)
	for range 2 {
		x += 0x9e3779b97f4a7c15
		z := (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		p = binary.BigEndian.AppendUint64(p, z^(z>>31))
	}
	return p
}

// passwordKey is the key of passwd: 32 bytes from crypto/rand, or nil
// for seeded passwords.
func passwordKey(seeded bool) ([]byte, error) {
	if seeded {
		return nil, nil
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("netserver: session password key: %w", err)
	}
	return key, nil
}

// handle serves one request of an established connection; false ends it.
func (s *Server) handle(c *conn, req wire.Request) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.dead {
		// The session expired or moved: ZooKeeper drops the request.
		return false
	}
	if req.Op != wire.OpAuth && req.Op != wire.OpSASL {
		// ZooKeeperServer.processPacket answers auth and sasl itself;
		// only the requests it submits touch the session. A client that
		// sends nothing else (kazoo's SASL client looping on the empty
		// tokens a server without SASL answers) has its session expire.
		c.lastHeard = time.Now()
	}
	// Every path below delivers the notifications the request caused once,
	// before its reply where it has one (reply, drop), or after.
	switch {
	case req.Op == wire.OpPing:
		// The ping's xid is always -2, whatever the client sent.
		rep := s.m.Do(c.session, proto.Ping{})
		c.send(wire.AppendHeader(nil, wire.XidPing, rep.Zxid, 0))
	case req.Op == wire.OpCloseSession:
		s.closeSession(c, req)
		s.deliver()
		return false
	case !req.Op.Known():
		// UnimplementedRequestProcessor: the request never got a zxid (-1),
		// and the connection closes after the reply. The session lives on.
		c.send(wire.AppendHeader(nil, req.Xid, -1, wire.CodeUnimplemented))
		s.drop(c)
		return false
	case req.Code != 0:
		return s.refuse(c, req)
	case req.Local != nil:
		return s.local(c, req)
	default:
		return s.apply(c, req)
	}
	return true
}

// refuse answers a request with req.Code without applying it; a refused
// write (req.Txn) is an error transaction, and takes a zxid.
func (s *Server) refuse(c *conn, req wire.Request) bool {
	zxid := s.m.ReplicaZxid(c.replica)
	if req.Txn {
		rep := s.m.Do(c.session, proto.Multi{Ops: []zkapi.Op{}})
		if lost(rep.Err) {
			s.drop(c)
			return false
		}
		zxid = rep.Zxid
	}
	s.deliver()
	c.send(wire.AppendRefusal(nil, req, zxid))
	return true
}

// apply runs a request through the checks the Machine does not make, the
// fault rules and the Machine.
func (s *Server) apply(c *conn, req wire.Request) bool {
	if req.Op == wire.OpMulti {
		if k, code := s.multiRefusal(c, req); code != 0 {
			return s.failMulti(c, req, k, code)
		}
	}
	if !s.admitWatches(c, req.Body) {
		return false
	}
	c.noteWatch(req.Body)
	fault := s.fate(c.session, req.Body)
	if fault == fakezk.LoseRequest {
		s.drop(c)
		return false
	}
	rep := s.m.Do(c.session, req.Body)
	s.fillCreateStats(req, &rep)
	if fault == fakezk.LoseReply {
		s.drop(c)
		return false
	}
	if req.Op == wire.OpCheck && rep.Err == nil {
		// ZooKeeper 3.8.0 answers a successful standalone check with a
		// SetDataResponse whose Stat is null; serializing it throws
		// ("Unexpected exception. Destruction averted.") and the reply
		// is never sent. The connection stays open.
		s.deliver()
		return true
	}
	return s.reply(c, req, rep)
}

// multiRefusal finds the first op of a multi that ZooKeeper fails before
// applying anything, for a reason the Machine does not check: a TTL node
// or an unknown create mode.
func (s *Server) multiRefusal(_ *conn, req wire.Request) (int, int32) {
	for k, op := range req.MultiOps {
		if op.Code != 0 {
			return k, op.Code
		}
	}
	return 0, 0
}

// failMulti answers a multi that fails at op k with code, as
// PrepRequestProcessor does: the ops before k are checked in order and
// the first of them that fails decides instead; nothing is applied and the
// multi takes one zxid. The Machine runs the ops before k followed by a
// check that always fails, so that it decides the first case.
func (s *Server) failMulti(c *conn, req wire.Request, k int, code int32) bool {
	m := req.Body.(proto.Multi)
	ops := append(m.Ops[:k:k], zkapi.CheckOp{Path: "/", Version: -2})
	rep := s.m.Do(c.session, proto.Multi{Ops: ops})
	if lost(rep.Err) {
		s.drop(c)
		return false
	}
	results := rep.Results
	if !slices.ContainsFunc(results[:k], func(r zkapi.OpResult) bool { return r.Err != nil }) {
		results[k].Err = codeError(code)
	}
	for range m.Ops[k+1:] {
		results = append(results, zkapi.OpResult{Err: zkapi.ErrRuntimeInconsistency})
	}
	rep.Results = results
	return s.reply(c, req, rep)
}

// codeError is an error whose proto.Code is code.
func codeError(code int32) error {
	if err := proto.ErrorForCode(code); proto.Code(err) == code {
		return err
	}
	return &rawCode{code}
}

type rawCode struct{ code int32 }

func (e *rawCode) Error() string { return fmt.Sprintf("netserver: result code %d", e.code) }

// lost reports whether the Machine has detached or ended the session (a
// frame over jute.maxbuffer, an expiry racing the request): the server
// hangs up without a reply.
func lost(err error) bool {
	return errors.Is(err, zkapi.ErrConnectionLoss) || errors.Is(err, zkapi.ErrSessionExpired)
}

// reply queues rep for c, after the notifications the request caused
// (a client sees a watch event before the reply to any later request).
func (s *Server) reply(c *conn, req wire.Request, rep proto.Reply) bool {
	if lost(rep.Err) {
		s.drop(c)
		return false
	}
	s.deliver()
	c.send(wire.AppendReply(nil, req, rep))
	return true
}

// drop closes c without the pending reply; the session lives on.
func (s *Server) drop(c *conn) {
	s.deliver()
	s.unbind(c)
	c.closeAfterFlush()
}

// fillCreateStats adds the Stat of each created node to the replies of
// create2, createContainer and createTTL, and to a multi's container and
// TTL creates, which carry one.
func (s *Server) fillCreateStats(req wire.Request, rep *proto.Reply) {
	stat := func(p string) zkapi.Stat {
		_, st, _ := s.m.Node(p)
		return st
	}
	switch req.Op {
	case wire.OpCreate2, wire.OpCreateContainer, wire.OpCreateTTL:
		if rep.Err == nil {
			rep.Stat = stat(rep.Path)
		}
	case wire.OpMulti:
		for i := range rep.Results {
			if req.MultiOps[i].Result == wire.OpCreate2 && rep.Results[i].Err == nil {
				rep.Results[i].Stat = stat(rep.Results[i].Path)
			}
		}
	}
}

// closeSession ends the session: its own last notifications (watches on
// its ephemerals) go out before the reply, then the connection closes.
func (s *Server) closeSession(c *conn, req wire.Request) {
	id := c.session
	for _, n := range s.m.CloseSession(id) {
		c.sendNotification(n, 0)
	}
	delete(s.bySession, id)
	c.dead = true
	c.send(wire.AppendHeader(nil, req.Xid, s.m.Zxid(), 0))
	c.closeAfterFlush()
	s.logf("session %#x closed by its client", id)
}
