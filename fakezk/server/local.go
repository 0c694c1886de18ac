package server

import (
	"crypto/sha1"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/fakezk/wire"
	"github.com/zksim/zksim/zkapi"
)

// This file answers the requests the Machine does not serve (wire.Local),
// from the connection's state and what the Machine shows, as ZooKeeper
// 3.8's FinalRequestProcessor and auth providers answer them. The fake
// keeps no ACLs: every node is world:anyone with all permissions, so
// getACL always shows that, setACL checks its arguments and changes
// nothing, and no request is ever refused NoAuth.

// authID is one identity of a connection (ZooKeeper's Id): the address
// it comes from, and whatever auth packets added.
type authID struct{ scheme, id string }

// local answers a Local request; false ends the connection.
func (s *Server) local(c *conn, req wire.Request) bool {
	defer s.deliver()
	var code int32
	var body wire.Response
	switch l := req.Local.(type) {
	case wire.Auth:
		return s.auth(c, req.Xid, l)
	case wire.SASL:
		// No SASL server is configured: processSasl's NullPointerException
		// is caught, and the reply is an empty token with zxid 0.
		c.send(wire.AppendResponse(nil, req.Xid, 0, 0, wire.SASLResponse{}))
		return true
	case wire.CreateSession:
		return s.createSession(c)
	case wire.SetACL:
		return s.setACL(c, req.Xid, l)
	case wire.RemoveWatches:
		return s.removeWatches(c, req.Xid, l)
	case wire.GetACL:
		code, body = s.getACL(c, l.Path)
	case wire.CheckWatches:
		code = zkapi.Code(s.m.CheckWatches(c.session, l.Path, fakezk.WatcherType(l.Type)))
	case wire.GetEphemerals:
		body = wire.PathsResponse{Paths: s.ephemerals(c.session, l.Prefix)}
	case wire.GetAllChildrenNumber:
		code, body = s.allChildrenNumber(c, l.Path)
	case wire.AddWatch:
		return s.addWatch(c, req.Xid, l)
	case wire.WhoAmI:
		body = wire.WhoAmIResponse{Clients: c.clientInfos()}
	case wire.MultiRead:
		code, body = s.multiRead(c, l)
	default:
		panic("server: local request of unknown type")
	}
	c.send(wire.AppendResponse(nil, req.Xid, s.m.ServerZxid(c.replica), code, body))
	return true
}

// auth handles an AuthPacket as ZooKeeperServer.processPacket does, with
// the two providers a default server has: digest (any bytes succeed and
// add digest:user:base64(sha1(bytes))) and ip (adds the address the
// connection already has). Any other scheme fails, and the connection
// closes; the session lives on.
func (s *Server) auth(c *conn, xid int32, a wire.Auth) bool {
	switch a.Scheme {
	case "digest":
		c.addID(authID{"digest", digestID(a.Data)})
	case "ip":
	default:
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
	if rep := s.m.Do(c.session, fakezk.Multi{Ops: []zkapi.Op{}}); lost(rep.Err) {
		s.drop(c)
		return false
	}
	resp := wire.ConnectResponse{
		TimeoutMs: int32(s.m.SessionTimeout(c.session)), SessionID: c.session, Passwd: s.passwd(c.session),
	}
	c.send(wire.AppendConnectResponse(nil, resp, c.readOnlyFlag))
	return true
}

// digestID is DigestAuthenticationProvider.generateDigest.
func digestID(data []byte) string {
	idPassword := strings.ToValidUTF8(string(data), "\uFFFD")
	user, _, _ := strings.Cut(idPassword, ":")
	sum := sha1.Sum([]byte(idPassword))
	return user + ":" + base64.StdEncoding.EncodeToString(sum[:])
}

func (c *conn) addID(id authID) {
	if !slices.Contains(c.ids, id) {
		c.ids = append(c.ids, id)
	}
}

// authIDs is the connection's identities in the order ZooKeeper lists
// them: it keeps them in a ConcurrentHashMap-backed set (16 bins while it
// holds at most 12), so the order is by bin of Id.hashCode, then by
// insertion.
func (c *conn) authIDs() []authID {
	ids := append([]authID{{"ip", c.ip}}, c.ids...)
	slices.SortStableFunc(ids, func(a, b authID) int { return a.bin() - b.bin() })
	return ids
}

func (id authID) bin() int {
	h := int32(17)
	h = 37*h + javaHash(id.scheme)
	h = 37*h + javaHash(id.id)
	u := uint32(h)
	return int((u ^ u>>16) & 0x7fffffff & 15)
}

// javaHash is String.hashCode over UTF-16 code units.
func javaHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// clientInfos is whoAmI's answer (AuthUtil.getClientInfos): each
// identity's scheme and user, the part of a digest id before its colon.
func (c *conn) clientInfos() []wire.ClientInfo {
	var out []wire.ClientInfo
	for _, id := range c.authIDs() {
		user := id.id
		if id.scheme == "digest" {
			user = javaSplit(id.id, ":")[0]
		}
		out = append(out, wire.ClientInfo{AuthScheme: id.scheme, User: user})
	}
	return out
}

// javaSplit is String.split with a literal separator: trailing empty
// strings are dropped, except that a string without the separator is
// itself.
func javaSplit(s, sep string) []string {
	parts := strings.Split(s, sep)
	if len(parts) == 1 {
		return parts
	}
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// validACL is PrepRequestProcessor.fixupACL's check: a non-empty ACL
// whose every entry is world:anyone, auth (which needs a digest identity
// on the connection), a digest id user:hash, or an IPv4 address with an
// optional prefix length. Any other scheme has no provider.
func (c *conn) validACL(acl []wire.ACL) bool {
	if len(acl) == 0 {
		return false
	}
	for _, a := range acl {
		ok := false
		switch a.Scheme {
		case "world":
			ok = a.ID == "anyone"
		case "auth":
			ok = slices.ContainsFunc(c.ids, func(id authID) bool { return id.scheme == "digest" })
		case "digest":
			ok = len(javaSplit(a.ID, ":")) == 2
		case "ip":
			ok = validIPACL(a.ID)
		}
		if !ok {
			return false
		}
	}
	return true
}

// validIPACL is IPAuthenticationProvider.isValid: IPv4 only (its IPv6
// parser is a TODO), each part and the prefix length read by
// Integer.parseInt.
func validIPACL(id string) bool {
	addr, bits, hasBits := strings.Cut(id, "/")
	parts := strings.Split(addr, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if v, err := strconv.ParseInt(p, 10, 32); err != nil || v < 0 || v > 255 {
			return false
		}
	}
	if hasBits {
		v, err := strconv.ParseInt(bits, 10, 32)
		return err == nil && v >= 0 && v <= 32
	}
	return true
}

// stat is a node's Stat as the connection's server sees it. Reads by
// path are plain lookups: a path with NUL is a node that does not exist.
func (s *Server) stat(c *conn, path string) (zkapi.Stat, bool) {
	if strings.IndexByte(path, 0) >= 0 {
		return zkapi.Stat{}, false
	}
	rep := s.m.Do(c.session, fakezk.GetData{Path: path})
	return rep.Stat, rep.Err == nil
}

func (s *Server) getACL(c *conn, path string) (int32, wire.Response) {
	st, ok := s.stat(c, path)
	if !ok {
		return zkapi.Code(zkapi.ErrNoNode), nil
	}
	return 0, wire.ACLResponse{ACL: wire.OpenACL, Stat: st}
}

// setACL is a write: a transaction whether it succeeds or not, checked in
// PrepRequestProcessor's order (path syntax, ACL, node, aversion). The
// fake keeps no ACL, so aversion stays 0 and getACL shows world:anyone.
func (s *Server) setACL(c *conn, xid int32, l wire.SetACL) bool {
	rep := s.m.Do(c.session, fakezk.Multi{Ops: []zkapi.Op{zkapi.CheckOp{Path: l.Path, Version: zkapi.AnyVersion}}})
	if lost(rep.Err) {
		s.drop(c)
		return false
	}
	code := zkapi.Code(rep.Err)
	st, _ := s.stat(c, l.Path)
	switch {
	case code == zkapi.Code(zkapi.ErrBadArguments):
	case !c.validACL(l.ACL):
		code = wire.CodeInvalidACL
	case code != 0:
	case l.Version != zkapi.AnyVersion && l.Version != st.Aversion:
		code = zkapi.Code(zkapi.ErrBadVersion)
	}
	var body wire.Response
	if code == 0 {
		body = wire.StatResponse{Stat: st}
	}
	c.send(wire.AppendResponse(nil, xid, rep.Zxid, code, body))
	return true
}

// addWatch registers a persistent (mode 0) or recursive (mode 1) watch;
// the reply's body is an ErrorResponse holding 0.
func (s *Server) addWatch(c *conn, xid int32, l wire.AddWatch) bool {
	req := fakezk.AddWatch{Path: l.Path, Recursive: l.Mode == 1}
	c.noteWatch(req)
	rep := s.m.Do(c.session, req)
	if lost(rep.Err) {
		s.drop(c)
		return false
	}
	c.send(wire.AppendResponse(nil, xid, rep.Zxid, zkapi.Code(rep.Err), wire.IntResponse{}))
	return true
}

// removeWatches removes the session's watches of a type on a path,
// NoWatcher if it has none.
func (s *Server) removeWatches(c *conn, xid int32, l wire.RemoveWatches) bool {
	rep := s.m.Do(c.session, fakezk.RemoveWatches{Path: l.Path, Type: fakezk.WatcherType(l.Type)})
	if lost(rep.Err) {
		s.drop(c)
		return false
	}
	c.send(wire.AppendHeader(nil, xid, rep.Zxid, zkapi.Code(rep.Err)))
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
// lists them in hash-set order; the fake sorts them.
func (s *Server) ephemerals(id int64, prefix string) []string {
	all := strings.TrimFunc(prefix, func(r rune) bool { return r <= ' ' })
	out := []string{}
	walk(s.m, "/", func(p string, st zkapi.Stat) {
		if st.EphemeralOwner == id && (all == "" || all == "/" || strings.HasPrefix(p, prefix)) {
			out = append(out, p)
		}
	})
	slices.Sort(out)
	return out
}

// walk calls f for every node below path (not path itself) on the leader,
// depth first, children in name order.
func walk(m *fakezk.Machine, path string, f func(p string, st zkapi.Stat)) {
	for _, name := range m.Children(path) {
		p := path + "/" + name
		if path == "/" {
			p = "/" + name
		}
		_, st, _ := m.Node(p)
		f(p, st)
		walk(m, p, f)
	}
}

// allChildrenNumber is getAllChildrenNumber: the number of descendants.
func (s *Server) allChildrenNumber(c *conn, path string) (int32, wire.Response) {
	if _, ok := s.stat(c, path); !ok {
		return zkapi.Code(zkapi.ErrNoNode), nil
	}
	n := int32(0)
	walk(s.m, path, func(string, zkapi.Stat) { n++ })
	return 0, wire.IntResponse{N: n}
}

// multiRead answers each read on its own; a failed one is an error
// result and does not stop the others.
func (s *Server) multiRead(c *conn, l wire.MultiRead) (int32, wire.Response) {
	var res []wire.ReadResult
	for _, op := range l.Ops {
		var rep fakezk.Reply
		switch {
		case strings.IndexByte(op.Path, 0) >= 0:
			// A plain lookup, as for getData: no node has a NUL in its path.
			rep.Err = zkapi.ErrNoNode
		case op.Op == wire.OpGetData:
			rep = s.m.Do(c.session, fakezk.GetData{Path: op.Path})
		default:
			rep = s.m.Do(c.session, fakezk.GetChildren{Path: op.Path})
		}
		res = append(res, wire.ReadResult{
			Op: op.Op, Code: zkapi.Code(rep.Err), Data: rep.Data, Stat: rep.Stat, Children: rep.Children,
		})
	}
	return 0, wire.MultiReadResponse{Results: res}
}
