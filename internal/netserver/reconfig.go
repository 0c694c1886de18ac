package netserver

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/zkapi"
)

// Reconfig (opcode 16) with Config.Reconfig, answered as a 3.8.0 ensemble
// with reconfigEnabled answers it (testdata/reconfig.golden, recorded with
// go-zookeeper through TestReconfig_Real; raw answers checked by hand):
//
//   - without reconfigEnabled: ReconfigDisabled; on a standalone server:
//     Unimplemented, before any other check;
//   - a CurConfigID other than -1 and the current version: BadVersion;
//   - incremental (NewMembers null): Leaving is comma-separated server
//     ids (one not a number: MarshallingError, the server's
//     NumberFormatException; one not a member: ignored), Joining
//     comma-separated server.N=host:port:port[:role][;[host:]port] (a
//     malformed one: BadArguments); a joining id replaces the member;
//   - non-incremental: NewMembers is the whole membership, lines or
//     comma-separated, in the same form; none at all: MarshallingError;
//   - a new configuration whose participants do not have a running
//     majority: NewConfigNoQuorum;
//   - last, WRITE on /zookeeper/config, which only the super user has:
//     NoAuth (mayReconfig), so an unauthenticated caller sees each error
//     above first;
//   - otherwise one transaction sets /zookeeper/config to the members in
//     id order and version=<the transaction's zxid in hex>, with Stat
//     version -1, and the reply is that data and Stat (GetDataResponse).
//
// Every refusal is an error transaction and takes a zxid. The connection
// stays open either way (the real server closes the connections of a
// leader that a reconfig removes; the fake's members keep serving).

// Reconfig's refusals that package wire does not name, as ZooKeeper's
// codes.
const (
	codeNoAuth           int32 = -102
	codeBadVersion       int32 = -103
	codeNewConfigNoQuora int32 = -13
)

// errConfigSyntax is a server line the real server's parser refuses.
var errConfigSyntax = errors.New("netserver: bad server line")

// quorumServer is one server.N line.
type quorumServer struct {
	id     int64
	addr   string // host:quorumPort:electionPort
	role   string // participant or observer
	client string // host:port, "" for none
}

func (q quorumServer) String() string {
	s := fmt.Sprintf("server.%d=%s:%s", q.id, q.addr, q.role)
	if q.client != "" {
		s += ";" + q.client
	}
	return s
}

// quorumConfig is the ensemble's configuration, in id order.
type quorumConfig struct {
	servers []quorumServer
	version int64 // the zxid that wrote it
}

// data renders the configuration written by transaction zxid, as the
// real server's QuorumVerifier.toString does.
func (q *quorumConfig) data(zxid int64) []byte {
	var b strings.Builder
	for _, s := range q.servers {
		b.WriteString(s.String())
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "version=%x", zxid)
	return []byte(b.String())
}

// initialQuorum is an ensemble's first configuration with Config.Reconfig:
// one participant per member; nil otherwise.
func initialQuorum(cfg Config, followers int) *quorumConfig {
	if !cfg.Reconfig || followers == 0 {
		return nil
	}
	q := &quorumConfig{}
	for i := 0; i <= followers; i++ {
		q.servers = append(q.servers, quorumServer{id: int64(i + 1), addr: "127.0.0.1:0:0", role: "participant"})
	}
	return q
}

// reconfig answers a reconfig request.
func (s *Server) reconfig(c *conn, xid int32, r wire.Reconfig) bool {
	next, code := s.nextQuorum(c, r)
	if code != 0 {
		return s.refuse(c, wire.Request{Xid: xid, Op: wire.OpReconfig, Code: code, Txn: true})
	}
	rep := s.m.Reconfig(c.session, next.data)
	if lost(rep.Err) {
		s.drop(c)
		return false
	}
	next.version = rep.Stat.Mzxid
	s.quorum = next
	s.logf("session %#x: reconfig to version %x", c.session, next.version)
	c.send(wire.AppendReply(nil, wire.Request{Xid: xid, Op: wire.OpReconfig}, rep))
	return true
}

// nextQuorum checks a reconfig in the real server's order and returns the
// configuration it asks for, or the code refusing it.
func (s *Server) nextQuorum(c *conn, r wire.Reconfig) (*quorumConfig, int32) {
	switch {
	case !s.cfg.Reconfig:
		return nil, wire.CodeReconfigDisabled
	case s.quorum == nil:
		return nil, wire.CodeUnimplemented
	case r.CurConfigID != -1 && r.CurConfigID != s.quorum.version:
		return nil, codeBadVersion
	}
	var next *quorumConfig
	var code int32
	if r.NewMembers != nil {
		next, code = parseMembers(string(r.NewMembers))
	} else {
		next, code = s.quorum.incremental(string(r.Joining), string(r.Leaving))
	}
	if code != 0 {
		return nil, code
	}
	if !s.synced(next) {
		return nil, codeNewConfigNoQuora
	}
	// The caller's permission is checked last: recorded on 3.8.0, an
	// unauthenticated reconfig with a stale version, a bad member line or
	// no quorum gets that error, not NoAuth.
	if !s.mayReconfig(c) {
		return nil, codeNoAuth
	}
	return next, 0
}

// mayReconfig is the real server's ACL check before a reconfig
// (PrepRequestProcessor): WRITE on /zookeeper/config, whose ACL
// (world:anyone READ) only the super user passes (fakezk.Config.SuperDigest,
// serve's -super-digest); the fake has no skipACL.
func (s *Server) mayReconfig(c *conn) bool {
	return s.m.CheckPerm(c.session, "/zookeeper/config", zkapi.PermWrite) == nil
}

// incremental applies an incremental change to q.
func (q *quorumConfig) incremental(joining, leaving string) (*quorumConfig, int32) {
	byID := map[int64]quorumServer{}
	for _, sv := range q.servers {
		byID[sv.id] = sv
	}
	for _, l := range splitList(leaving) {
		id, err := strconv.ParseInt(l, 10, 64)
		if err != nil {
			return nil, wire.CodeMarshalling
		}
		delete(byID, id)
	}
	for _, j := range splitList(joining) {
		sv, err := parseServerLine(j)
		if err != nil {
			return nil, wire.CodeBadArguments
		}
		byID[sv.id] = sv
	}
	return sortedQuorum(byID), 0
}

// parseMembers reads a whole membership, lines or comma-separated.
func parseMembers(members string) (*quorumConfig, int32) {
	byID := map[int64]quorumServer{}
	for _, line := range strings.Split(strings.ReplaceAll(members, ",", "\n"), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		sv, err := parseServerLine(line)
		if err != nil {
			return nil, wire.CodeBadArguments
		}
		byID[sv.id] = sv
	}
	if len(byID) == 0 {
		return nil, wire.CodeMarshalling
	}
	return sortedQuorum(byID), 0
}

func sortedQuorum(byID map[int64]quorumServer) *quorumConfig {
	q := &quorumConfig{}
	for _, sv := range byID {
		q.servers = append(q.servers, sv)
	}
	slices.SortFunc(q.servers, func(a, b quorumServer) int { return int(a.id - b.id) })
	return q
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// parseServerLine reads server.N=host:port:port[:role][;[host:]port].
func parseServerLine(line string) (quorumServer, error) {
	key, val, ok := strings.Cut(line, "=")
	idText, isServer := strings.CutPrefix(strings.TrimSpace(key), "server.")
	id, err := strconv.ParseInt(idText, 10, 64)
	if !ok || !isServer || err != nil {
		return quorumServer{}, fmt.Errorf("%w: %q", errConfigSyntax, line)
	}
	addr, client, hasClient := strings.Cut(strings.TrimSpace(val), ";")
	parts := strings.Split(addr, ":")
	sv := quorumServer{id: id, role: "participant"}
	switch {
	case len(parts) == 4 && (parts[3] == "participant" || parts[3] == "observer"):
		sv.role = parts[3]
	case len(parts) != 3:
		return quorumServer{}, fmt.Errorf("%w: %q", errConfigSyntax, line)
	}
	if parts[0] == "" || !isPort(parts[1]) || !isPort(parts[2]) {
		return quorumServer{}, fmt.Errorf("%w: %q", errConfigSyntax, line)
	}
	sv.addr = strings.Join(parts[:3], ":")
	if hasClient {
		host, port, found := strings.Cut(client, ":")
		if !found {
			host, port = "0.0.0.0", client
		}
		if host == "" || !isPort(port) {
			return quorumServer{}, fmt.Errorf("%w: %q", errConfigSyntax, line)
		}
		sv.client = host + ":" + port
	}
	return sv, nil
}

func isPort(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0 && n <= 65535
}

// synced reports whether a majority of q's participants are running
// members of the fake ensemble (server N is member N-1), as the real
// leader asks of its synced followers before it commits a reconfig.
func (s *Server) synced(q *quorumConfig) bool {
	voters, up := 0, 0
	for _, sv := range q.servers {
		if sv.role != "participant" {
			continue
		}
		voters++
		if i := int(sv.id - 1); i >= 0 && i < len(s.members) && !s.members[i].stopped {
			up++
		}
	}
	return 2*up > voters
}
