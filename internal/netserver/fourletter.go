package netserver

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/zksim/zksim/internal/wire"
)

// version is what srvr, stat, envi and mntr report.
const version = "3.8.0-zksim, built on fakezk"

// defaultFourLetterWords is ZooKeeper 3.8's 4lw.commands.whitelist when
// none is configured (FourLetterCommands.resetWhiteList: srvr alone).
var defaultFourLetterWords = []string{"srvr"}

// CheckFourLetterWords refuses a whitelist (Config.FourLetterWords)
// naming a word no server knows, which would silently never be answered.
func CheckFourLetterWords(words []string) error {
	for _, w := range words {
		var prefix [4]byte
		if len(w) == 4 {
			copy(prefix[:], w)
		}
		if _, ok := wire.FourLetterWord(prefix); !ok && w != "*" {
			return fmt.Errorf("%w: %q is not a four-letter word (ruok, srvr, stat, ...) or *", errConfig, w)
		}
	}
	return nil
}

// fourLetterAllowed reports whether the whitelist has word
// (FourLetterCommands.isEnabled).
func (s *Server) fourLetterAllowed(word string) bool {
	list := s.cfg.FourLetterWords
	if list == nil {
		list = defaultFourLetterWords
	}
	return slices.Contains(list, "*") || slices.Contains(list, word)
}

// fourLetter answers an admin command sent on the client port in place of
// a connect request, as a 3.8 server does: a word off the whitelist gets
// NopCommand's line (NIOServerCnxn.checkFourLetterWord checks it first,
// before stmk's argument or whether the server runs); the others the same
// answers with the same layout, the numbers the fake's.
// r supplies stmk's 8-byte argument; member is the member asked. The
// connection closes after.
func (s *Server) fourLetter(member int, word string, r io.Reader) string {
	if !s.fourLetterAllowed(word) {
		return word + " is not executed because it is not in the whitelist.\n"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.serving() {
		if answer, ok := fourLetterNotServing(word); ok {
			return answer
		}
	}
	switch word {
	case "ruok":
		return "imok"
	case "isro":
		return "rw"
	case "srvr":
		return s.srvr(member, "")
	case "stat":
		return s.srvr(member, "Clients:\n"+s.cons()+"\n")
	case "cons":
		return s.cons() + "\n"
	case "crst":
		return "Connection stats reset.\n"
	case "srst":
		return "Server stats reset.\n"
	case "conf":
		return s.conf()
	case "envi":
		return "Environment:\nzookeeper.version=" + version + "\nhost.name=localhost\n"
	case "dirs":
		return "datadir_size: 0\nlogdir_size: 0\n"
	case "mntr":
		return s.mntr(member)
	case "wchs":
		conns, paths, total := s.watchSummary()
		return fmt.Sprintf("%d connections watching %d paths\nTotal watches:%d\n", conns, paths, total)
	case "wchc":
		return s.watchesBySession() + "\n"
	case "wchp":
		return s.watchesByPath() + "\n"
	case "dump":
		return s.dump()
	case "gtmk":
		return "306"
	case "stmk":
		var mask [8]byte
		if _, err := io.ReadFull(r, mask[:]); err != nil {
			return ""
		}
		return fmt.Sprint(int64(binary.BigEndian.Uint64(mask[:])))
	}
	// hash: the fake keeps no digests.
	return ""
}

func (s *Server) srvr(member int, clients string) string {
	mode := s.memberState(member)
	nodes := s.m.NodeCount() // no walk: srvr is answered to anyone by default
	return fmt.Sprintf("Zookeeper version: %s\n%sLatency min/avg/max: 0/0.0/0\nReceived: 0\nSent: 0\n"+
		"Connections: %d\nOutstanding: 0\nZxid: %#x\nMode: %s\nNode count: %d\n",
		version, clients, len(s.conns), s.m.Zxid(), mode, nodes)
}

// cons lists the connections in remote address order.
func (s *Server) cons() string {
	var lines []string
	for c := range s.conns {
		lines = append(lines, fmt.Sprintf(" /%s[%d](queued=0,recved=0,sent=0)\n", c.nc.RemoteAddr(), min(c.session, 1)))
	}
	slices.Sort(lines)
	return strings.Join(lines, "")
}

func (s *Server) conf() string {
	tick := s.tick.Milliseconds()
	return fmt.Sprintf("clientPort=0\nsecureClientPort=-1\ndataDir=/dev/null\ndataDirSize=0\n"+
		"dataLogDir=/dev/null\ndataLogSize=0\ntickTime=%d\nmaxClientCnxns=%d\n"+
		"minSessionTimeout=%d\nmaxSessionTimeout=%d\nclientPortListenBacklog=-1\nserverId=0\n",
		tick, max(s.cfg.MaxClientCnxns, 0), 2*tick, 20*tick)
}

func (s *Server) mntr(member int) string {
	ephemerals, nodes := s.m.EphemeralCount(), s.m.NodeCount()
	_, _, watches := s.watchSummary()
	return fmt.Sprintf("zk_version\t%s\nzk_server_state\t%s\nzk_ephemerals_count\t%d\n"+
		"zk_num_alive_connections\t%d\nzk_avg_latency\t0.0\nzk_outstanding_requests\t0\n"+
		"zk_znode_count\t%d\nzk_global_sessions\t%d\nzk_watch_count\t%d\n",
		version, s.memberState(member), ephemerals, len(s.conns), nodes, len(s.m.SessionIDs()), watches)
}

// watched lists, by path, the sessions watching it on the leader (data
// and child watches together), over the paths some connection watched.
func (s *Server) watchedPaths() map[string][]int64 {
	out := map[string][]int64{}
	for c := range s.conns {
		for p := range c.watched {
			data, child := s.m.Watchers(0, p)
			ids := slices.Compact(slices.Sorted(slices.Values(slices.Concat(data, child))))
			if len(ids) > 0 {
				out[p] = ids
			}
		}
	}
	return out
}

func (s *Server) watchSummary() (conns, paths, total int) {
	sessions := map[int64]bool{}
	for _, ids := range s.watchedPaths() {
		paths++
		total += len(ids)
		for _, id := range ids {
			sessions[id] = true
		}
	}
	return len(sessions), paths, total
}

func (s *Server) watchesByPath() string {
	w := s.watchedPaths()
	var b strings.Builder
	for _, p := range sortedKeys(toSet(w)) {
		b.WriteString(p + "\n")
		for _, id := range w[p] {
			fmt.Fprintf(&b, "\t0x%x\n", id)
		}
	}
	return b.String()
}

func (s *Server) watchesBySession() string {
	bySession := map[int64][]string{}
	for p, ids := range s.watchedPaths() {
		for _, id := range ids {
			bySession[id] = append(bySession[id], p)
		}
	}
	var b strings.Builder
	for _, id := range sortedSessions(toConnSet(bySession)) {
		fmt.Fprintf(&b, "0x%x\n", id)
		for _, p := range slices.Sorted(slices.Values(bySession[id])) {
			b.WriteString("\t" + p + "\n")
		}
	}
	return b.String()
}

func (s *Server) dump() string {
	var b strings.Builder
	ids := s.m.SessionIDs()
	fmt.Fprintf(&b, "SessionTracker dump:\nSession Sets (%d)/(%d):\nephemeral nodes dump:\n", len(ids), len(ids))
	owners := map[int64][]string{}
	for _, id := range ids {
		if paths := s.m.Ephemerals(id); len(paths) > 0 {
			slices.SortFunc(paths, treeOrder)
			owners[id] = paths
		}
	}
	fmt.Fprintf(&b, "Sessions with Ephemerals (%d):\n", len(owners))
	for _, id := range sortedSessions(toConnSet(owners)) {
		fmt.Fprintf(&b, "0x%x:\n", id)
		for _, p := range owners[id] {
			b.WriteString("\t" + p + "\n")
		}
	}
	fmt.Fprintf(&b, "Connections dump:\nConnections Sets (1)/(%d):\n", len(s.conns))
	return b.String()
}

// treeOrder orders paths as a depth-first walk visits them, children in
// name order: segment by segment, so "/a/b" comes before "/a-b" although
// '-' sorts before '/'.
func treeOrder(a, b string) int {
	for a != "" && b != "" {
		x, y := a[0], b[0]
		if x != y {
			return cmp.Compare(segmentByte(x), segmentByte(y))
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// segmentByte makes '/' sort before every byte a node name may hold
// (never NUL).
func segmentByte(c byte) int {
	if c == '/' {
		return -1
	}
	return int(c)
}

func toSet[V any](m map[string]V) map[string]struct{} {
	out := make(map[string]struct{}, len(m))
	for k := range m {
		out[k] = struct{}{}
	}
	return out
}

func toConnSet[V any](m map[int64]V) map[int64]*conn {
	out := make(map[int64]*conn, len(m))
	for k := range m {
		out[k] = nil
	}
	return out
}
