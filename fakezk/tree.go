package fakezk

import (
	"math"
	"sort"

	"github.com/zksim/zksim/zkapi"
)

// containerOwner is the ephemeralOwner ZooKeeper stores for container
// nodes (EphemeralType.CONTAINER_EPHEMERAL_OWNER); clients see 0, as
// measured on 3.8.0.
const containerOwner = math.MinInt64

// znode is one node of the tree. cversion is the stored child-creation
// counter: it names sequential children and is never lowered by deletes;
// clients see 2*cversion - numChildren (DataNode.copyStat).
type znode struct {
	data      []byte
	stat      zkapi.Stat
	cversion  int32
	children  map[string]struct{}
	container bool
}

func (n *znode) view() zkapi.Stat {
	st := n.stat
	st.NumChildren = int32(len(n.children))
	st.Cversion = 2*n.cversion - st.NumChildren
	st.DataLength = int32(len(n.data))
	if st.EphemeralOwner == containerOwner {
		st.EphemeralOwner = 0
	}
	return st
}

// specialPaths cannot be deleted (the server answers BadArguments).
var specialPaths = map[string]bool{
	"/": true, "/zookeeper": true, "/zookeeper/quota": true, "/zookeeper/config": true,
}

func newTree() map[string]*znode {
	t := map[string]*znode{}
	for _, p := range []string{"/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"} {
		t[p] = &znode{children: map[string]struct{}{}}
		if p != "/" {
			parent, name := parentOf(p)
			t[parent].children[name] = struct{}{}
		}
	}
	t["/zookeeper/config"].stat.Aversion = -1 // measured on 3.8.0
	return t
}

// addNode inserts a node and updates its parent; undo-logged.
func (m *Machine) addNode(path string, data []byte, mode zkapi.CreateMode, owner int64) {
	parentPath, name := parentOf(path)
	parent := m.tree[parentPath]
	n := &znode{
		data:      append([]byte(nil), data...),
		children:  map[string]struct{}{},
		container: mode == zkapi.Container,
		stat: zkapi.Stat{
			Czxid: m.zxid, Mzxid: m.zxid, Pzxid: m.zxid,
			Ctime: m.now, Mtime: m.now, EphemeralOwner: owner,
		},
	}
	oldC, oldP := parent.cversion, parent.stat.Pzxid
	m.tree[path] = n
	parent.children[name] = struct{}{}
	if next := parent.cversion + 1; next > parent.cversion || m.cfg.Overflow == OverflowWrap {
		parent.cversion = next
	}
	parent.stat.Pzxid = m.zxid
	s := m.ownerSession(owner)
	if s != nil {
		s.ephemerals[path] = struct{}{}
	}
	m.logUndo(func() {
		delete(m.tree, path)
		delete(parent.children, name)
		parent.cversion, parent.stat.Pzxid = oldC, oldP
		if s != nil {
			delete(s.ephemerals, path)
		}
	})
}

// removeNode deletes a childless node; undo-logged.
func (m *Machine) removeNode(path string) {
	parentPath, name := parentOf(path)
	parent := m.tree[parentPath]
	n := m.tree[path]
	oldP := parent.stat.Pzxid
	delete(m.tree, path)
	delete(parent.children, name)
	parent.stat.Pzxid = m.zxid
	s := m.ownerSession(n.stat.EphemeralOwner)
	if s != nil {
		delete(s.ephemerals, path)
	}
	m.logUndo(func() {
		m.tree[path] = n
		parent.children[name] = struct{}{}
		parent.stat.Pzxid = oldP
		if s != nil {
			s.ephemerals[path] = struct{}{}
		}
	})
}

// setNodeData replaces data and bumps the version; undo-logged.
func (m *Machine) setNodeData(path string, data []byte) {
	n := m.tree[path]
	old, oldStat := n.data, n.stat
	n.data = append([]byte(nil), data...)
	n.stat.Version++
	n.stat.Mzxid = m.zxid
	n.stat.Mtime = m.now
	m.logUndo(func() { n.data, n.stat = old, oldStat })
}

func (m *Machine) ownerSession(owner int64) *session {
	if owner == 0 || owner == containerOwner {
		return nil
	}
	return m.sessions[owner]
}

func (m *Machine) logUndo(f func()) {
	if m.undo != nil {
		m.undo = append(m.undo, f)
	}
}

// childNames returns the children of n in the order the server would: a
// seeded shuffle of the sorted names (the real server iterates a hash set).
func (m *Machine) childNames(n *znode) []string {
	names := make([]string, 0, len(n.children))
	for c := range n.children {
		names = append(names, c)
	}
	sort.Strings(names)
	if !m.cfg.SortChildren {
		m.rng.shuffle(names)
	}
	return names
}
