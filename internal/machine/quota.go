package machine

import (
	"strconv"
	"strings"
)

// Quotas, as ZooKeeper's DataTree keeps them. A quota on /a/b is the node
// /zookeeper/quota/a/b with two children: zookeeper_limits, which the
// server only reads for its hard limits (zookeeper.enforceQuota, off by
// default and not modelled), and zookeeper_stats, which it keeps current.
// Creating the stats node makes the server count /a/b's subtree, /a/b
// included, and write "count=N,bytes=M" over what the client wrote
// (updateQuotaForPath). From then on, while the limits node exists, every
// create, delete and setData under /a/b adds to it (updateQuotaStat), as
// a bare change of data: no version, no mzxid, no watch event. Of nested
// quotas only the deepest with a limits node counts a change; without
// its stats node, nothing does. Checked against 3.8.0 by the conformance
// scenario quota.
const (
	quotaDir   = "/zookeeper/quota"
	limitsName = "zookeeper_limits"
	statsName  = "zookeeper_stats"
)

// quotaOf returns the path a quota node's child stands for ("/a/b" for
// /zookeeper/quota/a/b/zookeeper_stats), given its parent's path, and
// whether the parent is under quotaDir at all.
func quotaOf(parentPath string) (string, bool) {
	p, ok := strings.CutPrefix(parentPath, quotaDir)
	return p, ok && strings.HasPrefix(p, "/")
}

// quotaMatters reports whether adding or removing path may count in a
// quota: some limits node exists, or path is under quotaDir (it may be
// a limits or stats node). Nearly every change is neither: its quota
// work stays out of the change's own code (addQuota, removeQuota).
func (r *replica) quotaMatters(path string) bool {
	return r.limits != 0 || strings.HasPrefix(path, quotaDir+"/")
}

// addQuota is add's quota work for the new node n at p.path: count a
// limits node, fill a new stats node, count n in its quota.
//
//go:noinline
func (r *replica) addQuota(p prim, parentPath, name string, n *znode, u *undoRec) {
	r.noteLimits(p.path, 1)
	if q, ok := quotaOf(parentPath); ok && name == statsName {
		r.subtreeStats(n, q)
	}
	r.countQuota(r.statsFor(p.path), 1, int64(len(n.data)), u)
}

// removeQuota is remove's quota work for the node n removed from path.
//
//go:noinline
func (r *replica) removeQuota(path string, n *znode, u *undoRec) {
	r.noteLimits(path, -1)
	r.countQuota(r.statsFor(path), -1, -int64(len(n.data)), u)
}

// noteLimits counts the limits nodes (replica.limits) as path comes (d =
// 1) or goes (d = -1): with none, no write looks for a quota.
func (r *replica) noteLimits(path string, d int) {
	if !strings.HasSuffix(path, "/"+limitsName) {
		return // the common case, without looking for the parent
	}
	parent, name := parentOf(path)
	if _, ok := quotaOf(parent); ok && name == limitsName {
		r.limits += d
	}
}

// statsFor returns the stats node that counts a change at path: the one
// of the deepest quota over path (path included, / excluded) whose limits
// node exists; nil if there is none, or it has no stats node.
func (r *replica) statsFor(path string) *znode {
	if r.limits == 0 {
		return nil
	}
	for p := path; p != "/"; p, _ = parentOf(p) {
		q := quotaDir + p + "/"
		if r.tree[q+limitsName] != nil {
			return r.tree[q+statsName]
		}
	}
	return nil
}

// countQuota adds count and bytes to the stats node s counts path's
// change in (statsFor), recording the data it had in u for a multi's
// undo.
func (r *replica) countQuota(s *znode, count, bytes int64, u *undoRec) {
	if s == nil {
		return
	}
	if u != nil {
		u.stats, u.oldStats = s, s.data
	}
	s.data = addStats(s.data, count, bytes)
	r.touch(s)
}

// subtreeStats writes over the new stats node s the count and bytes of
// the quota's path and everything under it, 0 and 0 if it does not
// exist.
func (r *replica) subtreeStats(s *znode, path string) {
	var count, bytes int64
	var walk func(p string)
	walk = func(p string) {
		n := r.tree[p]
		if n == nil {
			return
		}
		count++
		bytes += int64(len(n.data))
		for _, c := range n.children {
			walk(childPath(p, c))
		}
	}
	walk(path)
	s.data = formatStats(nil, count, bytes) // s is new: add touches it
}

// childPath joins a node's path and a child's name.
func childPath(parent, name string) string {
	if parent == "/" {
		return "/" + name
	}
	return parent + "/" + name
}

// addStats parses a stats node's data as ZooKeeper's StatsTrack does,
// "key=value" pairs separated by commas, adds to its count and bytes (a
// missing one counting as -1, as StatsTrack reads it), and formats it
// back with count and bytes first and any other pairs after, as given.
// A pair that does not parse is dropped: StatsTrack would throw.
func addStats(data []byte, count, bytes int64) []byte {
	c, b := int64(-1), int64(-1)
	var rest []string
	for _, kv := range strings.Split(string(data), ",") {
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case !ok || err != nil:
		case k == "count":
			c = n
		case k == "bytes":
			b = n
		default:
			rest = append(rest, kv)
		}
	}
	return formatStats(rest, c+count, b+bytes)
}

func formatStats(rest []string, count, bytes int64) []byte {
	s := "count=" + strconv.FormatInt(count, 10) + ",bytes=" + strconv.FormatInt(bytes, 10)
	for _, kv := range rest {
		s += "," + kv
	}
	return []byte(s)
}
