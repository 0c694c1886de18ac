package machine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/zkapi"
)

// This file is ZooKeeper 3.8's access control: the identities a
// connection holds, fixupACL's check and expansion of a new ACL, and
// checkACL with the digest, ip and world schemes and the super digest
// (and sasl, sasl.go).
// Every node keeps its own ACL; its Aversion counts setACLs.

// AuthID is one identity of a session's connection (ZooKeeper's Id): the
// ip identity every connection has, and those that auth packets added.
type AuthID struct{ Scheme, ID string }

// DefaultAddress is the ip identity of a session whose server was told no
// address (SetAddress): the loopback address an in-process client, or a
// client on the same host, connects from.
const DefaultAddress = "127.0.0.1"

// openACL is the ACL of nodes created without one and of /, /zookeeper
// and /zookeeper/quota. Shared, never written to.
var openACL = zkapi.OpenACL

// readOnlyACL is /zookeeper/config's (ZooDefs.Ids.READ_ACL_UNSAFE,
// ZOOKEEPER-2014).
var readOnlyACL = []zkapi.ACL{{Perms: zkapi.PermRead, Scheme: "world", ID: "anyone"}}

// superID is the identity an auth matching Config.SuperDigest adds.
var superID = AuthID{Scheme: "super"}

// SetAddress sets the IPv4 or IPv6 address the session's current
// connection comes from, its ip identity (DefaultAddress until set). A
// server calls it after CreateSession and after every Attach.
func (m *Machine) SetAddress(id int64, addr string) {
	m.gen++ // see Machine.gen
	if s := m.sessions[id]; s != nil {
		s.addr = addr
	}
}

// Identities returns the identities of the session's connection in the
// order ZooKeeper iterates them (see orderIDs): what whoAmI reports and
// what an "auth" ACL entry expands to. Nil if the session is gone.
func (m *Machine) Identities(id int64) []AuthID {
	s := m.sessions[id]
	if s == nil {
		return nil
	}
	return s.identities()
}

func (s *session) address() string {
	if s.addr == "" {
		return DefaultAddress
	}
	return s.addr
}

// identities is the connection's set of Ids: the ip identity first, then
// those auth added, in ZooKeeper's iteration order.
func (s *session) identities() []AuthID {
	return orderIDs(append([]AuthID{{"ip", s.address()}}, s.auth...))
}

// orderIDs sorts ids as ZooKeeper's ServerCnxn.authInfo iterates them:
// a ConcurrentHashMap-backed set (16 bins while it holds at most 12),
// so by bin of Id.hashCode, then by insertion.
func orderIDs(ids []AuthID) []AuthID {
	slices.SortStableFunc(ids, func(a, b AuthID) int { return a.bin() - b.bin() })
	return ids
}

func (id AuthID) bin() int {
	h := int32(17)
	h = 37*h + javaStringHash(id.Scheme)
	h = 37*h + javaStringHash(id.ID)
	u := uint32(h)
	return int((u ^ u>>16) & 0x7fffffff & 15)
}

// addAuth is ZooKeeperServer's handling of an AuthPacket with the
// providers a default server has: digest (any bytes succeed: the identity
// is their digest, plus super if it is Config.SuperDigest) and ip (adds
// the address the connection already has). Any other scheme fails with
// ErrAuthFailed; the server then closes the connection.
func (m *Machine) addAuth(s *session, r proto.AddAuth) error {
	switch r.Scheme {
	case "digest":
		digest := zkapi.DigestID(strings.ToValidUTF8(string(r.Data), "\uFFFD"))
		if m.cfg.SuperDigest != "" && digest == m.cfg.SuperDigest {
			s.addID(superID)
		}
		s.addID(AuthID{"digest", digest})
	case "ip":
	default:
		return fmt.Errorf("%w: no provider for scheme %q", zkapi.ErrAuthFailed, r.Scheme)
	}
	return nil
}

func (s *session) addID(id AuthID) {
	if !slices.Contains(s.auth, id) {
		s.auth = append(s.auth, id)
	}
}

// fixupACL is PrepRequestProcessor.fixupACL: duplicates dropped (first
// kept), then each entry checked in order: world:anyone is kept, auth is
// replaced by one entry per digest identity of the connection (none:
// InvalidACL), digest and ip ids (and sasl ids, with RegisterSASL) must be
// well formed, and any other scheme has no provider (InvalidACL). Permissions are not checked (measured on
// 3.8.0: 0 and 63 are kept). Nil is OpenACL, what zkapi.Conn.Create sends;
// an empty list is InvalidACL.
func fixupACL(s *session, acl []zkapi.ACL, sasl bool) ([]zkapi.ACL, error) {
	if acl == nil {
		return openACL, nil
	}
	return fixupGiven(s, acl, sasl)
}

// fixupGiven is fixupACL of an ACL the request gave: out of line, as
// nearly every request gives none.
//
//go:noinline
func fixupGiven(s *session, acl []zkapi.ACL, sasl bool) ([]zkapi.ACL, error) {
	uniq := make([]zkapi.ACL, 0, len(acl))
	for _, a := range acl {
		if !slices.Contains(uniq, a) {
			uniq = append(uniq, a)
		}
	}
	if len(uniq) == 0 {
		return nil, fmt.Errorf("%w: empty ACL", zkapi.ErrInvalidACL)
	}
	out := make([]zkapi.ACL, 0, len(uniq))
	for _, a := range uniq {
		switch {
		case a.Scheme == "world" && a.ID == "anyone":
			out = append(out, a)
		case a.Scheme == "auth":
			n := len(out)
			for _, id := range s.identities() {
				if id.Scheme == "digest" || sasl && id.Scheme == "sasl" { // the providers isAuthenticated
					out = append(out, zkapi.ACL{Perms: a.Perms, Scheme: id.Scheme, ID: id.ID})
				}
			}
			if len(out) == n {
				return nil, fmt.Errorf("%w: auth entry and no digest identity", zkapi.ErrInvalidACL)
			}
		case sasl && a.Scheme == "sasl" && validKerberosName(a.ID):
			out = append(out, a)
		case validID(a.Scheme, a.ID):
			out = append(out, a)
		default:
			return nil, fmt.Errorf("%w: %s:%s", zkapi.ErrInvalidACL, a.Scheme, a.ID)
		}
	}
	return out, nil
}

// validID is the isValid of the scheme's provider; false for a scheme
// without one.
func validID(scheme, id string) bool {
	switch scheme {
	case "digest":
		return len(javaSplit(id, ":")) == 2
	case "ip":
		_, _, ok := parseIPACL(id)
		return ok
	}
	return false
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

// parseIPACL is IPAuthenticationProvider's reading of an ip id: an IPv4
// address (its IPv6 parser is a TODO), each part read by
// Integer.parseInt, with an optional prefix length.
func parseIPACL(id string) (addr [4]byte, bits int, ok bool) {
	a, b, hasBits := strings.Cut(id, "/")
	addr, ok = parseIPv4(a)
	if !ok {
		return addr, 0, false
	}
	bits = 32
	if hasBits {
		v, err := strconv.ParseInt(b, 10, 32)
		if err != nil || v < 0 || v > 32 {
			return addr, 0, false
		}
		bits = int(v)
	}
	return addr, bits, true
}

func parseIPv4(s string) (addr [4]byte, ok bool) {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return addr, false
	}
	for i, p := range parts {
		v, err := strconv.ParseInt(p, 10, 32)
		if err != nil || v < 0 || v > 255 {
			return addr, false
		}
		addr[i] = byte(v)
	}
	return addr, true
}

// ipMatches is IPAuthenticationProvider.matches: the client's address
// and the ACL's, both masked to the prefix length, are equal.
func ipMatches(client, aclID string) bool {
	want, bits, ok := parseIPACL(aclID)
	if !ok {
		return false
	}
	got, ok := parseIPv4(client)
	if !ok {
		return false
	}
	for i := range 4 {
		keep := min(8, max(0, bits-8*i))
		mask := byte(0xff << (8 - keep))
		if got[i]&mask != want[i]&mask {
			return false
		}
	}
	return true
}

// CheckPerm is the ACL check of a request the Machine does not serve
// itself (the wire server's reconfig): nil if session id's identities
// grant perm on path; ErrNoAuth if not, ErrNoNode without the node,
// ErrSessionExpired without the session.
func (m *Machine) CheckPerm(id int64, path string, perm int32) error {
	s := m.sessions[id]
	if s == nil {
		return zkapi.ErrSessionExpired
	}
	n := m.leader().tree[path]
	if n == nil {
		return zkapi.ErrNoNode
	}
	return checkACL(s, n.acl, perm)
}

// DigestCan returns a check of whether a client that authenticated with
// each of credentials ("user:password", as addauth digest sends) would be
// granted perm on path: what an observer holding those credentials may
// see (netserver's control interface lists only such children). The super
// user's credentials (Config.SuperDigest) pass everything, as on the
// server; with none, only world:anyone's grants count. The check is false
// without the node.
func (m *Machine) DigestCan(credentials []string) func(path string, perm int32) bool {
	s := &session{}
	for _, c := range credentials {
		m.addAuth(s, proto.AddAuth{Scheme: "digest", Data: []byte(c)})
	}
	return func(path string, perm int32) bool {
		n := m.leader().tree[path]
		return n != nil && checkACL(s, n.acl, perm) == nil
	}
}

// checkACL is ZooKeeperServer.checkACL: a super identity passes
// everything; otherwise some entry granting one of perm's bits must be
// world:anyone or match one of the connection's identities of its scheme
// (digest: equal; ip: the address within the network).
// The order of the checks does not change the answer; the common case,
// world:anyone, costs no allocation.
func checkACL(s *session, acl []zkapi.ACL, perm int32) error {
	if len(acl) == 1 && &acl[0] == &openACL[0] { // nearly every node's
		return nil
	}
	return checkGiven(s, acl, perm)
}

// checkGiven is checkACL of any other ACL than openACL: out of line, as
// nearly every node has that one.
//
//go:noinline
func checkGiven(s *session, acl []zkapi.ACL, perm int32) error {
	for _, a := range acl {
		if a.Perms&perm != 0 && a.Scheme == "world" && a.ID == "anyone" {
			return nil
		}
	}
	if slices.Contains(s.auth, superID) {
		return nil
	}
	for _, a := range acl {
		if a.Perms&perm == 0 {
			continue
		}
		if a.Scheme == "ip" && ipMatches(s.address(), a.ID) {
			return nil
		}
		for _, id := range s.auth {
			if id.Scheme == a.Scheme && idMatches(a.Scheme, id.ID, a.ID) {
				return nil
			}
		}
	}
	return zkapi.ErrNoAuth
}

func idMatches(scheme, id, aclID string) bool {
	switch scheme {
	case "digest":
		return id == aclID
	case "ip":
		return ipMatches(id, aclID)
	case "sasl":
		return saslMatches(id, aclID)
	}
	return false
}

// maskDigests is getACL's answer to a caller without ADMIN: each digest
// entry's hash replaced by "x" (ZOOKEEPER-1392's replaceAll(":.*", ":x")).
func maskDigests(acl []zkapi.ACL) []zkapi.ACL {
	out := slices.Clone(acl)
	for i, a := range out {
		if a.Scheme == "digest" {
			if j := strings.IndexByte(a.ID, ':'); j >= 0 {
				out[i].ID = a.ID[:j] + ":x"
			}
		}
	}
	return out
}

// getACL answers from the session's replica: NoNode, then READ or ADMIN.
func (m *Machine) getACL(s *session, r proto.GetACL) proto.Reply {
	n, err := lookup(m.replicas[s.replica], r.Path)
	if err != nil {
		return proto.Reply{Err: err}
	}
	if err := checkACL(s, n.acl, zkapi.PermRead|zkapi.PermAdmin); err != nil {
		return proto.Reply{Err: err}
	}
	acl := slices.Clone(n.acl)
	if checkACL(s, n.acl, zkapi.PermAdmin) != nil {
		acl = maskDigests(acl)
	}
	return proto.Reply{ACL: acl, Stat: n.view()}
}

// setACL checks in PrepRequestProcessor's order: path syntax, the new
// ACL (fixupACL), node missing, ADMIN on the node, then its aversion.
func (m *Machine) setACL(s *session, r proto.SetACL) proto.Reply {
	if err := validatePath(r.Path); err != nil {
		return proto.Reply{Err: err}
	}
	acl, err := fixupACL(s, r.ACL, m.sasl)
	if err != nil {
		return proto.Reply{Err: err}
	}
	n, err := lookup(m.leader(), r.Path)
	if err != nil {
		return proto.Reply{Err: err}
	}
	if err := checkACL(s, n.acl, zkapi.PermAdmin); err != nil {
		return proto.Reply{Err: err}
	}
	if r.Version != zkapi.AnyVersion && r.Version != n.stat.Aversion {
		return proto.Reply{Err: zkapi.ErrBadVersion}
	}
	m.change(prim{kind: primACL, path: r.Path, acl: acl}, where{n: n})
	return proto.Reply{Stat: n.view()}
}
