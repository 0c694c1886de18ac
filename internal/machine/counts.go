package machine

import (
	"slices"
)

// The reads in this file answer what a server would otherwise find by
// walking the whole tree (getEphemerals, getAllChildrenNumber, the
// four-letter words' counts) from state the Machine keeps anyway, so that
// their cost does not grow with the tree. Like Children and Node they
// look at the leader and change nothing.

// Descendants returns the number of nodes below path on the leader
// (getAllChildrenNumber), and false if path does not exist there.
func (m *Machine) Descendants(path string) (int32, bool) {
	n := m.leader().tree[path]
	if n == nil {
		return 0, false
	}
	return n.desc, true
}

// NodeCount is the number of nodes on the leader, / included.
func (m *Machine) NodeCount() int { return len(m.leader().tree) }

// Ephemerals lists, sorted, the paths of the ephemeral nodes a live
// session owns on the leader; nil if the session is gone (its ephemerals
// went with it).
func (m *Machine) Ephemerals(id int64) []string {
	s := m.sessions[id]
	if s == nil {
		return nil
	}
	out := make([]string, 0, s.ephemerals.len())
	s.ephemerals.each(func(p string) { out = append(out, p) })
	slices.Sort(out)
	return out
}

// EphemeralCount is the number of ephemeral nodes (containers and TTL
// nodes aside) on the leader.
func (m *Machine) EphemeralCount() int {
	n := 0
	for _, s := range m.sessions {
		n += s.ephemerals.len()
	}
	return n
}
