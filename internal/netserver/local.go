package netserver

import (
	"slices"
	"strings"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/zkapi"
)

// This file answers the requests the Machine does not serve (wire.Local),
// from the connection's state and what the Machine shows, as ZooKeeper
// 3.8's FinalRequestProcessor answers them. The Machine keeps the
// connection's identities (auth) and every node's ACL.

// local answers a Local request; false ends the connection.
func (s *Server) local(c *conn, req wire.Request) bool {
	defer s.deliver()
	var code int32
	var body wire.Response
	switch l := req.Local.(type) {
	case wire.Auth:
		return s.auth(c, req.Xid, l)
	case wire.SASL:
		return s.sasl(c, req.Xid, l.Token)
	case wire.CreateSession:
		return s.createSession(c)
	case wire.Reconfig:
		return s.reconfig(c, req.Xid, l)
	case wire.RemoveWatches:
		return s.removeWatches(c, req.Xid, l)
	case wire.CheckWatches:
		code = proto.Code(s.m.CheckWatches(c.session, l.Path, l.Type))
	case wire.GetEphemerals:
		body = wire.PathsResponse{Paths: s.ephemerals(c.session, l.Prefix)}
	case wire.GetAllChildrenNumber:
		code, body = s.allChildrenNumber(c, l.Path)
	case wire.AddWatch:
		return s.addWatch(c, req.Xid, l)
	case wire.WhoAmI:
		body = wire.WhoAmIResponse{Clients: s.clientInfos(c)}
	case wire.MultiRead:
		code, body = s.multiRead(c, l)
	default:
		panic("netserver: local request of unknown type")
	}
	c.send(wire.AppendResponse(nil, req.Xid, s.m.ReplicaZxid(c.replica), code, body))
	return true
}

// auth handles an AuthPacket before any request processor: the Machine
// adds the identity, or fails an unknown scheme, after which the
// connection closes and the session lives on. The reply has zxid 0.
func (s *Server) auth(c *conn, xid int32, a wire.Auth) bool {
	rep := s.m.Do(c.session, proto.AddAuth{Scheme: a.Scheme, Data: a.Data})
	if lost(rep.Err) {
		s.drop(c)
		return false
	}
	if rep.Err != nil {
		c.send(wire.AppendHeader(nil, xid, 0, wire.CodeAuthFailed))
		s.drop(c)
		return false
	}
	c.send(wire.AppendHeader(nil, xid, 0, 0))
	return true
}

// createSession answers a createSession request on an established
// connection as ZooKeeper does: a createSession transaction for the
// connection's own session (a zxid), then finishSessionInit's
// ConnectResponse again, with the timeout negotiated at the handshake.
// (ZooKeeper's session tracker also takes the request's timeout, unchecked,
// as the session's; the fake keeps the negotiated one.)
func (s *Server) createSession(c *conn) bool {
	if rep := s.m.Do(c.session, proto.Multi{Ops: []zkapi.Op{}}); lost(rep.Err) {
		s.drop(c)
		return false
	}
	resp := wire.ConnectResponse{
		TimeoutMs: int32(s.m.SessionTimeout(c.session)), SessionID: c.session, Passwd: s.passwd(c.session),
	}
	c.send(wire.AppendConnectResponse(nil, resp, c.readOnlyFlag))
	return true
}

// clientInfos is whoAmI's answer (AuthUtil.getClientInfos): each
// identity's scheme and user, the part of a digest id before its colon.
func (s *Server) clientInfos(c *conn) []wire.ClientInfo {
	var out []wire.ClientInfo
	for _, id := range s.m.Identities(c.session) {
		user := id.ID
		if id.Scheme == "digest" {
			user, _, _ = strings.Cut(id.ID, ":") // user:base64(sha1): the hash is never empty
		}
		out = append(out, wire.ClientInfo{AuthScheme: id.Scheme, User: user})
	}
	return out
}

// stat is a node's Stat as the connection's server sees it, whatever its
// ACL (an exists, which checks none, and leaves no watch). Reads by path
// are plain lookups: a path with NUL is a node that does not exist.
func (s *Server) stat(c *conn, path string) (zkapi.Stat, bool) {
	if strings.IndexByte(path, 0) >= 0 {
		return zkapi.Stat{}, false
	}
	rep := s.m.Do(c.session, proto.Exists{Path: path})
	return rep.Stat, rep.Err == nil
}

// addWatch registers a persistent (mode 0) or recursive (mode 1) watch;
// the reply's body is an ErrorResponse holding 0.
func (s *Server) addWatch(c *conn, xid int32, l wire.AddWatch) bool {
	req := proto.AddWatch{Path: l.Path, Recursive: l.Mode == 1}
	if !s.admitWatches(c, req) {
		return false
	}
	c.noteWatch(req)
	rep := s.m.Do(c.session, req)
	if lost(rep.Err) {
		s.drop(c)
		return false
	}
	c.send(wire.AppendResponse(nil, xid, rep.Zxid, proto.Code(rep.Err), wire.IntResponse{}))
	return true
}

// removeWatches removes the session's watches of a type on a path,
// NoWatcher if it has none.
func (s *Server) removeWatches(c *conn, xid int32, l wire.RemoveWatches) bool {
	rep := s.m.Do(c.session, proto.RemoveWatches{Path: l.Path, Type: l.Type})
	if lost(rep.Err) {
		s.drop(c)
		return false
	}
	c.send(wire.AppendHeader(nil, xid, rep.Zxid, proto.Code(rep.Err)))
	return true
}

func sortedKeys(m map[string]struct{}) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ephemerals lists a session's ephemeral nodes whose path starts with
// prefix; a blank prefix or "/" means all (FinalRequestProcessor). ZooKeeper
// lists them in hash-set order; the fake sorts them. The Machine keeps
// each session's ephemerals: the cost is the session's, not the tree's,
// under the server's lock (issue 22).
func (s *Server) ephemerals(id int64, prefix string) []string {
	all := strings.TrimFunc(prefix, func(r rune) bool { return r <= ' ' })
	out := []string{}
	for _, p := range s.m.Ephemerals(id) { // sorted
		if all == "" || all == "/" || strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	return out
}

// walkInto calls f for every node below path (not path itself) on the
// leader, depth first, children in name order, listing the children only
// of the nodes descend allows (path included). It costs the tree's size:
// only the control interface's /tree uses it.
func walkInto(m *machine.Machine, path string, descend func(string) bool, f func(p string, st zkapi.Stat)) {
	if !descend(path) {
		return
	}
	for _, name := range m.Children(path) {
		p := path + "/" + name
		if path == "/" {
			p = "/" + name
		}
		_, st, _ := m.Node(p)
		f(p, st)
		walkInto(m, p, descend, f)
	}
}

// allChildrenNumber is getAllChildrenNumber: the number of descendants
// on the leader, which the Machine counts as nodes come and go, so no walk
// holds the server's lock (issue 22).
// It checks: node missing -> READ, as getData does.
func (s *Server) allChildrenNumber(c *conn, path string) (int32, wire.Response) {
	if _, ok := s.stat(c, path); !ok {
		return proto.Code(zkapi.ErrNoNode), nil
	}
	if rep := s.m.Do(c.session, proto.GetData{Path: path}); rep.Err != nil {
		return proto.Code(rep.Err), nil
	}
	n, _ := s.m.Descendants(path) // 0 if a lagging follower's node is gone from the leader
	return 0, wire.IntResponse{N: n}
}

// multiRead answers each read on its own; a failed one is an error
// result and does not stop the others.
func (s *Server) multiRead(c *conn, l wire.MultiRead) (int32, wire.Response) {
	var res []wire.ReadResult
	for _, op := range l.Ops {
		var rep proto.Reply
		switch {
		case strings.IndexByte(op.Path, 0) >= 0:
			// A plain lookup, as for getData: no node has a NUL in its path.
			rep.Err = zkapi.ErrNoNode
		case op.Op == wire.OpGetData:
			rep = s.m.Do(c.session, proto.GetData{Path: op.Path})
		default:
			rep = s.m.Do(c.session, proto.GetChildren{Path: op.Path})
		}
		res = append(res, wire.ReadResult{
			Op: op.Op, Code: proto.Code(rep.Err), Data: rep.Data, Stat: rep.Stat, Children: rep.Children,
		})
	}
	return 0, wire.MultiReadResponse{Results: res}
}
