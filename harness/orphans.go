package harness

import (
	"strconv"
	"strings"

	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
)

// creations records, for the orphan checker, every node the clients'
// requests created as the server applied them (simhook.Observer's Applied:
// a create whose reply was then lost included, and each create of a
// multi), and when each client's program returned. The lock and the
// barrier workloads share it.
type creations struct {
	made  []creation
	ended []int // per client: the step its program returned in; -1: it has not
}

// creation is one node a client's request created.
type creation struct {
	client  int
	path    string // a sequential node's name is the reply's
	mode    zkapi.CreateMode
	session int64 // the session the request ran on
	zxid    int64 // the node's Czxid: a node made again at path is another
	step    int
}

// newCreations is an empty record of the nodes clients create, made in
// spare (nil: a new one) with room for n nodes.
func newCreations(clients, n int, spare *creations) *creations {
	cs := spare
	if cs == nil {
		cs = new(creations)
	}
	*cs = creations{made: emptied(cs.made, n), ended: zeroed(cs.ended, clients)}
	for i := range cs.ended {
		cs.ended[i] = -1
	}
	return cs
}

// applied records the nodes a request of c's created.
func (cs *creations) applied(c *sim.Client, req proto.Request, rep *proto.Reply) {
	if rep.Err != nil {
		return
	}
	switch r := req.(type) {
	case proto.Create:
		cs.add(c, rep.Path, r.Mode, rep.Zxid)
	case proto.Multi:
		for i, op := range r.Ops {
			if o, ok := op.(zkapi.CreateOp); ok && i < len(rep.Results) {
				cs.add(c, rep.Results[i].Path, o.Mode, rep.Zxid)
			}
		}
	}
}

func (cs *creations) add(c *sim.Client, path string, mode zkapi.CreateMode, zxid int64) {
	cs.made = append(cs.made, creation{client: c.Index(), path: path, mode: mode, session: c.Session(), zxid: zxid, step: c.Sim().Step()})
}

// finish records that c's program returned.
func (cs *creations) finish(c *sim.Client) { cs.ended[c.Index()] = c.Sim().Step() }

// leftovers lists the nodes the clients created that are still there at
// the end of the run res, with the facts checkers.Leftovers judges, less
// those kept (what the recipe leaves on purpose) and those the server
// removes by itself: a TTL node once it is empty and old enough, and a
// container that has or had children (the reaper deletes it once it is
// empty). A container that never had a child stays for good, as in
// ZooKeeper 3.8 by default (znode.container.maxNeverUsedIntervalMs 0).
// expired says when a session expired, if it did. A run in which some
// client's program still runs (cut short) has none: that client may yet
// remove any node, by design.
func (cs *creations) leftovers(s *sim.Sim, res *sim.Result, kept func(path string) bool, expired func(session int64) (int, bool)) []checkers.Leftover {
	if len(res.Waiting) > 0 {
		return nil
	}
	var out []checkers.Leftover
	var f *fates // read from the trace only when some node is left
	for _, cr := range cs.made {
		_, st, ok := s.State().Node(cr.path)
		if !ok || st.Czxid != cr.zxid || kept(cr.path) || reaped(cr.mode, st) {
			continue
		}
		if f == nil {
			f = readFates(res.Trace)
		}
		out = append(out, cs.leftover(cr, s.Clients()[cr.client], f, expired))
	}
	return out
}

// leftover is the facts about a node cr made that is still there.
func (cs *creations) leftover(cr creation, c *sim.Client, f *fates, expired func(int64) (int, bool)) checkers.Leftover {
	l := checkers.Leftover{Client: cr.client, Path: cr.path, Ephemeral: proto.IsEphemeral(cr.mode), Container: cr.mode == zkapi.Container,
		Session: cr.session, Created: cr.step, Lost: f.lostReply[cr.step]}
	l.End, l.Ended = checkers.Crashed, f.crash[c.Name()]
	if cs.ended[cr.client] >= 0 {
		l.End, l.Ended = checkers.Finished, cs.ended[cr.client]
	}
	if at, ok := expired(cr.session); ok {
		l.SessionEnd, l.SessionAt = checkers.Expired, at
	} else if cr.session != c.Session() {
		l.SessionEnd, l.SessionAt = checkers.Abandoned, f.abandon[cr.session]
	}
	return l
}

// reaped says whether the server removes a node of this mode and Stat by
// itself (see leftovers).
func reaped(mode zkapi.CreateMode, st zkapi.Stat) bool {
	switch {
	case proto.IsTTL(mode):
		return true
	case mode == zkapi.Container:
		return st.NumChildren > 0 || st.Cversion > 0
	}
	return false
}

// keeper is what a recipe used at dir keeps on purpose: each of its
// directories (dirs) and their ancestors, which are the caller's, and
// whatever its keeps (a Recipe's Keeps, or nil) says.
func keeper(dirs []string, dir string, keeps func(dir, path string) bool) func(string) bool {
	return func(p string) bool {
		for _, d := range dirs {
			if p == d || strings.HasPrefix(d, p+"/") {
				return true
			}
		}
		return keeps != nil && keeps(dir, p)
	}
}

// fates are the steps of what the observers do not see, read from a
// traced run's lines (an untraced run leaves them unknown): the clients'
// crashes, the sessions they abandoned, and the steps whose reply was
// lost.
type fates struct {
	crash     map[string]int // client name -> step
	abandon   map[int64]int  // session -> step
	lostReply map[int]bool   // step -> a lose-reply event
}

// readFates reads lines "  40 t3   crash c2", "  35 t2   abandon c2 ->
// session 0x5 left to expire, ..." and "  31 t2   lose-reply c2 ...".
func readFates(trace []string) *fates {
	f := &fates{crash: map[string]int{}, abandon: map[int64]int{}, lostReply: map[int]bool{}}
	for _, line := range trace {
		w := strings.Fields(line)
		if len(w) < 4 {
			continue
		}
		step, err := strconv.Atoi(w[0])
		if err != nil {
			continue
		}
		switch w[2] {
		case "crash":
			f.crash[w[3]] = step
		case "lose-reply":
			f.lostReply[step] = true
		case "abandon":
			if len(w) > 6 && w[5] == "session" {
				if id, err := strconv.ParseInt(strings.TrimPrefix(w[6], "0x"), 16, 64); err == nil {
					f.abandon[id] = step
				}
			}
		}
	}
	return f
}
