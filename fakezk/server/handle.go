package server

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/fakezk/wire"
	"github.com/zksim/zksim/zkapi"
)

// connect answers a ConnectRequest as ZooKeeperServer.processConnectRequest
// does: a new session, a resumed one (closing the connection that held it
// before), or a refusal. False ends the connection.
func (s *Server) connect(c *conn, req wire.ConnectRequest) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if zxid := s.m.ServerZxid(c.replica); req.LastZxidSeen > zxid {
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
			panic(fmt.Sprintf("server: replica %d checked at accept: %v", c.replica, err))
		}
		s.timeouts[info.ID] = time.Duration(info.TimeoutMs) * time.Millisecond
		resp.SessionID, resp.TimeoutMs = info.ID, int32(info.TimeoutMs)
		s.logf("%s: new session %#x, timeout %d ms", c.nc.RemoteAddr(), info.ID, info.TimeoutMs)
	} else if !s.resume(c, req) {
		s.logf("%s: refusing session %#x: expired or wrong password", c.nc.RemoteAddr(), req.SessionID)
		c.send(wire.AppendConnectResponse(nil, wire.ConnectResponse{Passwd: make([]byte, wire.PasswdLen)}, req.HasReadOnly))
		c.closeAfterFlush()
		return false
	} else {
		resp.SessionID, resp.TimeoutMs = req.SessionID, int32(s.timeouts[req.SessionID].Milliseconds())
		s.logf("%s: resumed session %#x", c.nc.RemoteAddr(), req.SessionID)
	}
	resp.Passwd = s.passwd(resp.SessionID)
	c.session, c.lastHeard = resp.SessionID, time.Now()
	s.bySession[c.session] = c
	c.send(wire.AppendConnectResponse(nil, resp, req.HasReadOnly))
	s.deliver()
	return true
}

// resume re-attaches a live session whose password matches; the
// connection that held it, if any, is closed.
func (s *Server) resume(c *conn, req wire.ConnectRequest) bool {
	id := req.SessionID
	if !s.m.Alive(id) || !bytes.Equal(req.Passwd, s.passwd(id)) {
		return false
	}
	if old := s.bySession[id]; old != nil {
		s.unbind(old)
		old.closeAfterFlush()
	}
	if err := s.m.Attach(id, c.replica, req.LastZxidSeen); err != nil {
		return false
	}
	return true
}

// passwd is the session's password: a function of the seed and the id, so
// runs repeat, and unguessable enough for a test server.
func (s *Server) passwd(id int64) []byte {
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

// handle serves one request of an established connection; false ends it.
func (s *Server) handle(c *conn, req wire.Request) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.dead {
		return false
	}
	c.lastHeard = time.Now()
	defer s.deliver()
	id := c.session
	switch {
	case req.Op == wire.OpPing:
		rep := s.m.Do(id, fakezk.Ping{})
		c.send(wire.AppendHeader(nil, wire.XidPing, rep.Zxid, nil))
	case req.Op == wire.OpAuth:
		c.send(wire.AppendHeader(nil, wire.XidAuth, 0, nil))
	case req.Op == wire.OpCloseSession:
		s.closeSession(c, req)
		return false
	case req.Refuse != nil:
		c.send(wire.AppendHeader(nil, req.Xid, s.m.ServerZxid(c.replica), req.Refuse))
	case req.Op == wire.OpGetACL:
		rep := s.m.Do(id, fakezk.GetData{Path: req.Path})
		return s.reply(c, req, rep)
	default:
		return s.apply(c, req)
	}
	return true
}

// apply runs a request through the fault rules and the Machine.
func (s *Server) apply(c *conn, req wire.Request) bool {
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
	return s.reply(c, req, rep)
}

// reply queues rep for c, after the notifications the request caused
// (a client sees a watch event before the reply to any later request).
func (s *Server) reply(c *conn, req wire.Request, rep fakezk.Reply) bool {
	if errors.Is(rep.Err, zkapi.ErrConnectionLoss) || errors.Is(rep.Err, zkapi.ErrSessionExpired) {
		// The Machine has detached or ended the session (a frame over
		// jute.maxbuffer, an expiry racing the request): hang up.
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
// create2 and createContainer, which carry one.
func (s *Server) fillCreateStats(req wire.Request, rep *fakezk.Reply) {
	stat := func(p string) zkapi.Stat {
		_, st, _ := s.m.Node(p)
		return st
	}
	switch req.Op {
	case wire.OpCreate2, wire.OpCreateContainer:
		if rep.Err == nil {
			rep.Stat = stat(rep.Path)
		}
	case wire.OpMulti:
		for i := range rep.Results {
			if t := req.MultiOps[i]; (t == wire.OpCreate2 || t == wire.OpCreateContainer) && rep.Results[i].Err == nil {
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
	delete(s.timeouts, id)
	c.dead = true
	c.send(wire.AppendHeader(nil, req.Xid, s.m.Zxid(), nil))
	c.closeAfterFlush()
	s.logf("session %#x closed by its client", id)
}

// fourLetter answers an admin command on the client port.
func (s *Server) fourLetter(word string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch word {
	case "ruok":
		return "imok"
	case "srvr":
		return fmt.Sprintf("Zookeeper version: 3.8.0-zksim, built on fakezk\n"+
			"Latency min/avg/max: 0/0.0/0\nReceived: 0\nSent: 0\nConnections: %d\n"+
			"Outstanding: 0\nZxid: %#x\nMode: standalone\nNode count: 0\n",
			len(s.conns), s.m.Zxid())
	}
	return word + " is not executed because it is not in the whitelist.\n"
}
