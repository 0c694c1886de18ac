package machine

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/zksim/zksim/internal/fphash"
	"github.com/zksim/zksim/zkapi"
)

// containerOwner is the ephemeralOwner ZooKeeper stores for container
// nodes (EphemeralType.CONTAINER_EPHEMERAL_OWNER); clients see 0, as
// measured on 3.8.0.
const containerOwner = math.MinInt64

// znode is one node of a tree. cversion is the stored child-creation
// counter: it names sequential children and is never lowered by deletes;
// clients see 2*cversion - numChildren (DataNode.copyStat).
type znode struct {
	data     []byte
	acl      []zkapi.ACL // shared with other nodes and replicas; replaced, never written to
	stat     zkapi.Stat
	cversion int32
	// desc counts the node's descendants (getAllChildrenNumber's answer):
	// add, remove and undo keep it on every ancestor, following up, so
	// the answer needs no walk. Both are derived from the tree and are
	// not fingerprinted; they fit in the size class znode had without.
	desc     int32
	up       *znode   // the parent node; nil for / (and once freed)
	children []string // names, sorted: lookups need no scan
	// born is, for each child, when it was added (its rank in the
	// insertion order of the real server's hash set of children: see
	// listing) and its name's spreadHash, kept since every listing needs
	// it. buckets is that set's table size, 0 until the first child (the
	// server makes the set then).
	born    []birth
	buckets int32
	// vmtime is the virtual time of the node's last change, which a TTL
	// node ages from (ttlAge): its mtime may come from a host's clock
	// (Machine.UseClock), and TTL reaping must not. Derived from mtime
	// when there is no such clock, so not fingerprinted.
	vmtime int64
	// path is where the node is in its tree; fp is its hash as counted in
	// the replica's set of node hashes (replica.nodes) when counted, and
	// dirty says it is on the list of nodes to rehash (replica.touch).
	path    string
	fp      uint64
	counted bool
	dirty   bool
}

// addChild adds name, born at b, growing the table as java.util.HashMap
// does: a table of 8 (DataNode's new HashSet<String>(8)) that doubles
// when a bucket would hold a ninth name while the table is under 64
// (HashMap.treeifyBin), and when the set outgrows three quarters of it.
func (n *znode) addChild(name string, b uint64, room *childRoom) {
	if n.buckets == 0 {
		n.buckets = 8
	}
	h := spreadHash(name)
	if n.buckets < 64 && len(n.children) >= 8 && n.bucketLoad(h) >= 8 {
		n.buckets *= 2
	}
	n.insertHashed(name, h, b, room)
	if len(n.children) > int(n.buckets)*3/4 {
		n.buckets *= 2
	}
}

// insertChild puts name, born at b, in its sorted place, the table left
// as it is: a multi's undo puts a removed child back so. A node's first
// child makes room for a few: a node with one child usually gets more (a
// lock's queue).
func (n *znode) insertChild(name string, b uint64, room *childRoom) {
	n.insertHashed(name, spreadHash(name), b, room)
}

// insertHashed is insertChild given name's spreadHash h.
func (n *znode) insertHashed(name string, h uint32, b uint64, room *childRoom) {
	if n.children == nil {
		n.children, n.born = room.take()
	}
	k := len(n.children)
	i := k // a sequential node's name usually sorts last
	if k > 0 && name < n.children[k-1] {
		i, _ = slices.BinarySearch(n.children[:k-1], name)
	}
	n.children = append(n.children, name)
	n.born = append(n.born, birth{b, h})
	if i < k {
		copy(n.children[i+1:], n.children[i:k])
		copy(n.born[i+1:], n.born[i:k])
		n.children[i], n.born[i] = name, birth{b, h}
	}
}

// childRoom hands out the arrays of nodes' first children, several
// nodes' worth in one allocation: a simulator's run makes a tree whose
// every parent node needs some.
type childRoom struct {
	names  []string
	births []birth
}

// firstChildren is the room a node's first child makes: a node with one
// child usually gets more (a lock's queue). childChunk is how many
// children's room childRoom allocates at once.
const (
	firstChildren = 4
	childChunk    = 4 * firstChildren
)

// take returns empty arrays with room for firstChildren children; a nil
// room allocates them on their own.
func (c *childRoom) take() ([]string, []birth) {
	if c == nil {
		return make([]string, 0, firstChildren), make([]birth, 0, firstChildren)
	}
	if len(c.names) == 0 {
		c.names, c.births = make([]string, childChunk), make([]birth, childChunk)
	}
	names, births := c.names[:0:firstChildren], c.births[:0:firstChildren]
	c.names, c.births = c.names[firstChildren:], c.births[firstChildren:]
	return names, births
}

// birth is when a child was added, and its name's spreadHash.
type birth struct {
	rank uint64
	hash uint32
}

// bucketLoad counts the children in the bucket of hash h.
func (n *znode) bucketLoad(h uint32) int {
	k := 0
	for _, c := range n.born {
		if (c.hash^h)&uint32(n.buckets-1) == 0 {
			k++
		}
	}
	return k
}

// removeChild deletes name if present and returns when it was born.
func (n *znode) removeChild(name string) uint64 {
	i, ok := slices.BinarySearch(n.children, name)
	if !ok {
		return 0
	}
	b, last := n.born[i].rank, len(n.children)-1
	copy(n.children[i:], n.children[i+1:])
	copy(n.born[i:], n.born[i+1:])
	n.children[last] = "" // let go of the name
	n.children, n.born = n.children[:last], n.born[:last]
	return b
}

// listing returns n's children in the order ZooKeeper lists them: the
// iteration order of DataNode's HashSet, bucket by bucket of its table,
// and within a bucket in the order the names were added (HashMap keeps a
// bucket's entries in insertion order, and a resize splits a bucket
// without reordering it). So two listings in a row agree, and the names
// decide the order, as on the real server (checked against 3.8.0 by the
// conformance scenario children-order). A bucket of nine or more names in
// a table of 64 or more becomes a tree whose root ZooKeeper lists first;
// that is not modelled. The names go in out, one place a child (the
// caller's: a leaf's is empty and non-nil, as a reply decoded from the
// wire is).
func (n *znode) listing(out []string) []string {
	var buf [32]uint64 // a lock's queue fits: no allocation
	for j, i := range n.order(buf[:0]) {
		out[j] = n.children[i]
	}
	return out
}

// orderIndex is how many low bits of order's sort keys hold the child's
// index; the bits above hold its bucket and then its birth rank.
const orderIndex = 16

// order appends to ks the indices of n's children in listing's order:
// ks's room is used when it is enough. It sorts plain numbers, each a
// child's bucket, birth rank and index packed in order of significance,
// which order as (bucket, rank) does since no two children share a rank;
// a node whose numbers would not fit is sorted by orderSlow.
func (n *znode) order(ks []uint64) []uint64 {
	bucketBits := bits.Len32(uint32(n.buckets - 1))
	rankBits := 64 - orderIndex - bucketBits
	if len(n.children) > 1<<orderIndex {
		return n.orderSlow(ks)
	}
	mask := uint32(n.buckets - 1)
	for i, b := range n.born {
		if b.rank>>rankBits != 0 {
			return n.orderSlow(ks[:0])
		}
		bucket := uint64(b.hash & mask)
		ks = append(ks, bucket<<(64-bucketBits)|b.rank<<orderIndex|uint64(i))
	}
	slices.Sort(ks)
	for j := range ks {
		ks[j] &= 1<<orderIndex - 1
	}
	return ks
}

// orderSlow is order for any node, sorting records.
func (n *znode) orderSlow(ks []uint64) []uint64 {
	mask := uint32(n.buckets - 1)
	es := make([]listed, len(n.children))
	for i, b := range n.born {
		es[i] = listed{b.hash & mask, b.rank, i}
	}
	slices.SortFunc(es, compareListed)
	for _, e := range es {
		ks = append(ks, uint64(e.i))
	}
	return ks
}

// listed is a child as orderSlow orders it.
type listed struct {
	bucket uint32
	born   uint64
	i      int
}

// compareListed orders by bucket, then by when the child was added.
func compareListed(a, b listed) int {
	return cmp.Or(cmp.Compare(a.bucket, b.bucket), cmp.Compare(a.born, b.born))
}

// spreadHash is HashMap.hash of a Java String: its hashCode with the high
// half folded into the low.
func spreadHash(s string) uint32 {
	h := uint32(javaStringHash(s))
	return h ^ h>>16
}

func (n *znode) view() zkapi.Stat {
	st := n.stat
	st.NumChildren = int32(len(n.children))
	st.Cversion = 2*n.cversion - st.NumChildren
	st.DataLength = int32(len(n.data))
	if st.EphemeralOwner == containerOwner || isTTLOwner(st.EphemeralOwner) {
		st.EphemeralOwner = 0
	}
	return st
}

// configPath is the dynamic configuration's node. ZooKeeper gives it a
// read-only ACL (world:anyone READ, ZOOKEEPER-2014) with aversion -1: a
// setData on it and a create under it answer NoAuth, except to super.
const configPath = "/zookeeper/config"

// special reports whether path cannot be deleted (the server answers
// BadArguments): a switch, not a map, as every delete asks.
func special(path string) bool {
	switch path {
	case "/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config":
		return true
	}
	return false
}

// primKind is the kind of a primitive change to a data tree.
type primKind uint8

const (
	primAdd primKind = iota
	primRemove
	primSet
	// primConfig sets /zookeeper/config's data as a reconfig does: the
	// real server's SetDataTxn(CONFIG_NODE, data, -1) stamps the node's
	// version with -1 instead of counting it (measured on 3.8.0).
	primConfig
	primACL // setACL: the node's ACL replaced, its aversion up by one
)

// prim is one primitive change. A transaction is the prims sharing a zxid;
// the leader applies them as it decides them and followers replay them
// from the log, so every replica's tree goes through the same states.
type prim struct {
	kind  primKind
	cut   int32 // where path's last '/' is: change finds it once (split)
	path  string
	data  []byte
	acl   []zkapi.ACL // primAdd, primACL: the node's ACL, fixed up
	owner int64       // primAdd: ephemeral session, containerOwner, a ttlOwner, or 0
	zxid  int64
	now   int64 // the node times it stamps
	vnow  int64 // the virtual time: znode.vmtime
}

// replica is one ensemble member's copy of the data tree with its own watch tables:
// the leader (index 0) or a follower. Sessions read from, and watch on,
// the replica they are connected to.
type replica struct {
	tree map[string]*znode
	zxid int64 // last transaction applied
	next int   // followers: index of the next log entry to apply

	// path -> watching sessions; exists watches on missing nodes live in
	// dataW, as on the real server.
	dataW  watchTable
	childW watchTable
	// watched has, for each table (by watchKind), the pathBit of every
	// path it holds, and of some it held since it was last empty: a
	// trigger whose path's bit is clear needs no lookup (most of them).
	watched [2]uint64
	// modes holds the mode of every watch that is not standard, and
	// recursive counts the recursive ones by kind: only with some does a
	// trigger look at its path's ancestors.
	modes     map[modeKey]watchMode
	recursive [2]int
	peaks     watchPeaks // for shrunk

	free     []*znode  // removed nodes, for newNode
	freeRoom [8]*znode // free's first room, in the replica's allocation
	fresh    []znode   // never used nodes, allocated nodeChunk at a time
	room     childRoom
	born     uint64 // children added so far: the next child's znode.born
	limits   int    // quotas' limits nodes in the tree (quota.go)

	// nodes is the set hash of the nodes' hashes (znode.fp), kept up to
	// date from the first fingerprint on (hashing): a fingerprint then
	// rehashes only the nodes changed since the last one, listed in
	// dirty (see touch).
	nodes   fphash.Hash
	hashing bool
	dirty   []*znode
}

func newReplica() *replica {
	r := &replica{tree: make(map[string]*znode, treeRoom), dataW: watchTable{}, childW: watchTable{}}
	r.free = r.freeRoom[:0]
	var nodes [len(initialPaths)]*znode // found by index: no lookups
	for i, p := range initialPaths {
		n := r.newNode() // the first of a chunk: a simulator makes a tree per run
		// Empty data, not null, as DataTree makes them (the config node
		// too: measured on 3.8.0, raw case "/zookeeper/config is
		// read-only").
		n.data, n.acl, n.path = []byte{}, openACL, p
		r.tree[p] = n
		nodes[i] = n
		if up := initialParents[i]; up >= 0 {
			_, name := parentOf(p)
			nodes[up].addChild(name, uint64(i), &r.room)
			n.up = nodes[up]
			countAncestors(n.up, 1)
		}
		r.born++
	}
	config := nodes[len(nodes)-1]
	config.stat.Aversion = -1 // measured on 3.8.0
	config.acl = readOnlyACL
	return r
}

// treeRoom is the tree map's first room: a simulated lock's tree (the
// four initial nodes, its directories and a queue node per client) peaks
// at 10 to 13 nodes, which an empty map reaches by growing twice, the
// second time rehashing every path; a map made for 14 holds them as is.
const treeRoom = 14

// initialPaths are the nodes of a new tree, each after its parent, the
// config node last; initialParents are their parents' indices (-1: /).
var (
	initialPaths   = [...]string{"/", "/zookeeper", "/zookeeper/quota", configPath}
	initialParents = [...]int{-1, 0, 1, 1}
)

// countAncestors adds d to the descendant count of parent and of each of
// its ancestors: a node under it was added (d = 1) or removed (d = -1).
// A node is a leaf when it comes and goes, so its own count is 0 either
// way.
func countAncestors(parent *znode, d int32) {
	for a := parent; a != nil; a = a.up {
		a.desc += d
	}
}

// undoRec is what undoes one change a multi made on the leader, should a
// later op of the multi fail. It is plain data in a list the Machine
// reuses, so that a multi builds no closures.
type undoRec struct {
	p        prim
	parent   *znode      // add, remove
	n        *znode      // remove: the node taken out; set: the node changed
	oldC     int32       // add: the parent's counter before
	oldB     int32       // add: the parent's table size before
	born     uint64      // remove: when the removed child was added
	oldP     int64       // add, remove: the parent's Pzxid before
	oldData  []byte      // set
	oldACL   []zkapi.ACL // acl
	oldStat  zkapi.Stat  // set, acl
	oldVM    int64       // set: the node's vmtime before
	owner    *session    // an ephemeral's add or remove: its session
	oldPeak  int         // and its peak of ephemerals before
	stats    *znode      // the quota stats node the change counted in, if any
	oldStats []byte      // and its data before
}

// apply performs p and appends the watch triggers it causes to fired,
// each with the ACL that decides who is told (the node's, or the
// parent's for NodeChildrenChanged).
// With u it also records in u what undoes p: only a multi, which may roll
// back, asks for that. The sequence counter follows the configured
// overflow rule. at holds the nodes the caller already looked up on
// this replica, if any.
func (r *replica) apply(p prim, overflow Overflow, fired []trigger, u *undoRec, at where) []trigger {
	switch p.kind {
	case primAdd:
		parentPath, name := p.split()
		parent := r.add(p, parentPath, name, overflow, u, r.known(at.parent, parentPath))
		fired = fire(fired, p.path, zkapi.EventNodeCreated, p.acl)
		return fire(fired, parentPath, zkapi.EventNodeChildrenChanged, parent.acl)
	case primRemove:
		parentPath, name := p.split()
		parent, n := r.remove(p, parentPath, name, u, r.known(at.parent, parentPath), r.known(at.n, p.path))
		fired = fire(fired, p.path, zkapi.EventNodeDeleted, n.acl)
		return fire(fired, parentPath, zkapi.EventNodeChildrenChanged, parent.acl)
	case primACL:
		r.setACL(p, u, r.known(at.n, p.path)) // fires no watch
		return fired
	default:
		n := r.set(p, u, r.known(at.n, p.path))
		return fire(fired, p.path, zkapi.EventNodeDataChanged, n.acl)
	}
}

// fire appends a trigger to fired: one copy of the append, whose stores
// of pointers are long code, for every trigger a change causes.
//
//go:noinline
func fire(fired []trigger, path string, typ zkapi.EventType, acl []zkapi.ACL) []trigger {
	return append(fired, trigger{path, typ, acl})
}

// where is the nodes a change is about, as its caller found them on the
// leader: the node, and for an add or remove its parent and the parent's
// path; nil (and "") for those it did not look up, and for every
// follower. A request looks them up once, not once to check and again to
// change.
type where struct {
	parent, n  *znode
	parentPath string
}

// cut is where path's last '/' is, from the parent's path when known.
func (at where) cut(path string) int32 {
	switch at.parentPath {
	case "":
		return int32(strings.LastIndexByte(path, '/'))
	case "/":
		return 0
	}
	return int32(len(at.parentPath))
}

// split is parentOf(p.path), by the cut change found.
func (p prim) split() (parent, name string) {
	if p.cut == 0 {
		return "/", p.path[1:]
	}
	return p.path[:p.cut], p.path[p.cut+1:]
}

// known is n, or the node at path when the caller did not know it.
func (r *replica) known(n *znode, path string) *znode {
	if n != nil {
		return n
	}
	return r.tree[path]
}

// add, remove and set share p.data with the other replicas and the log:
// Machine.change copied it from the caller once, and node data is only
// ever replaced, never written to.
func (r *replica) add(p prim, parentPath, name string, overflow Overflow, u *undoRec, parent *znode) *znode {
	if u != nil {
		u.recordAdd(p, parent)
	}
	n := r.newNode()
	n.data, n.acl, n.up, n.path = p.data, p.acl, parent, p.path
	n.stat = zkapi.Stat{
		Czxid: p.zxid, Mzxid: p.zxid, Pzxid: p.zxid,
		Ctime: p.now, Mtime: p.now, EphemeralOwner: p.owner,
	}
	n.vmtime = p.vnow
	r.tree[p.path] = n
	parent.addChild(name, r.born, &r.room)
	r.born++
	if r.quotaMatters(p.path) {
		r.addQuota(p, parentPath, name, n, u)
	}
	countAncestors(parent, 1)
	// ZOOKEEPER-3249 (3.6.0+): a wrapped counter is never stored.
	if next := parent.cversion + 1; next > parent.cversion || overflow == OverflowWrap {
		parent.cversion = next
	}
	parent.stat.Pzxid = p.zxid
	r.touch(n)
	r.touch(parent)
	return parent
}

// recordAdd, recordRemove, recordSet and recordACL note in u what undoes
// a change: only a multi asks, so they are kept out of the change's own
// code, which every write runs.
//
//go:noinline
func (u *undoRec) recordAdd(p prim, parent *znode) {
	*u = undoRec{p: p, parent: parent, oldC: parent.cversion, oldB: parent.buckets, oldP: parent.stat.Pzxid}
}

//go:noinline
func (u *undoRec) recordRemove(p prim, parent, n *znode) {
	*u = undoRec{p: p, parent: parent, n: n, oldP: parent.stat.Pzxid}
}

//go:noinline
func (u *undoRec) recordSet(p prim, n *znode) {
	*u = undoRec{p: p, n: n, oldData: n.data, oldStat: n.stat, oldVM: n.vmtime}
}

//go:noinline
func (u *undoRec) recordACL(p prim, n *znode) {
	*u = undoRec{p: p, n: n, oldACL: n.acl, oldStat: n.stat}
}

// remove returns the parent and the removed node, which a free list may
// hand out again only after the caller is done with it (the next add).
func (r *replica) remove(p prim, parentPath, name string, u *undoRec, parent, n *znode) (*znode, *znode) {
	if u != nil {
		u.recordRemove(p, parent, n)
	} else {
		r.free = append(r.free, n) // nothing can bring it back
		n.up = nil                 // nor keep its parent alive
	}
	delete(r.tree, p.path)
	b := parent.removeChild(name)
	if u != nil {
		u.born = b
	}
	if r.quotaMatters(p.path) {
		r.removeQuota(p.path, n, u)
	}
	countAncestors(parent, -1)
	parent.stat.Pzxid = p.zxid
	r.touch(n)
	r.touch(parent)
	return parent, n
}

func (r *replica) set(p prim, u *undoRec, n *znode) *znode {
	if u != nil {
		u.recordSet(p, n)
	}
	if r.limits != 0 {
		r.countQuota(r.statsFor(p.path), 0, int64(len(p.data)-len(n.data)), u)
	}
	n.data = p.data
	if p.kind == primConfig {
		n.stat.Version = -1
	} else {
		n.stat.Version++
	}
	n.stat.Mzxid = p.zxid
	n.stat.Mtime, n.vmtime = p.now, p.vnow
	r.touch(n)
	return n
}

func (r *replica) setACL(p prim, u *undoRec, n *znode) {
	if u != nil {
		u.recordACL(p, n)
	}
	n.acl = p.acl
	n.stat.Aversion++
	r.touch(n)
}

// undo reverts the change u recorded, the last one not yet undone. It
// touches no node (see touch): the change it reverts touched the same
// ones (the node, its parent, the quota's stats node), and no
// fingerprint is taken between a change and its undo, so they are
// rehashed as they are once undone.
func (r *replica) undo(u *undoRec) {
	_, name := u.p.split()
	if u.stats != nil {
		u.stats.data = u.oldStats
	}
	switch u.p.kind {
	case primAdd:
		r.noteLimits(u.p.path, -1)
		delete(r.tree, u.p.path)
		u.parent.removeChild(name)
		countAncestors(u.parent, -1)
		u.parent.cversion, u.parent.stat.Pzxid = u.oldC, u.oldP
		u.parent.buckets = u.oldB // a failed multi never touched the real tree
	case primRemove:
		r.noteLimits(u.p.path, 1)
		r.tree[u.p.path] = u.n
		u.parent.insertChild(name, u.born, &r.room) // back in its place
		countAncestors(u.parent, 1)
		u.parent.stat.Pzxid = u.oldP
	case primACL:
		u.n.acl, u.n.stat = u.oldACL, u.oldStat
	default:
		u.n.data, u.n.stat, u.n.vmtime = u.oldData, u.oldStat, u.oldVM
	}
}

// touch notes that n changed in what its hash covers (its data, Stat,
// cversion, children, table size or ACL) or came or went: the next
// fingerprint rehashes it. Every change to a node in a tree calls it; a
// missed one would make two different states hash alike, and a search
// skip one of them (TestFingerprint_KeptIsFresh checks the kept hashes against
// fresh ones). Before the first fingerprint it does nothing.
func (r *replica) touch(n *znode) {
	if r.hashing && !n.dirty {
		n.dirty = true
		r.dirty = append(r.dirty, n)
	}
}

// nodeChunk is how many nodes newNode allocates at once when none was
// freed: a simulator's run makes a tree per replica, which in the
// standard lock workload peaks at 10 to 13 nodes, so one chunk nearly
// always holds it (two chunks of 8 cost a third more room to clear).
const nodeChunk = 12

// newNode returns an empty node, reusing one removed for good: a lock's
// nodes come and go all the time. No removed node is referred to: reads
// copy what they return, and only a multi's undo keeps one, which is then
// not freed.
func (r *replica) newNode() *znode {
	k := len(r.free)
	if k == 0 {
		if len(r.fresh) == 0 {
			r.fresh = make([]znode, nodeChunk)
		}
		n := &r.fresh[0]
		r.fresh = r.fresh[1:]
		return n
	}
	n := r.free[k-1]
	r.free[k-1] = nil
	r.free = r.free[:k-1]
	// A removed node had no children. It keeps its hash's bookkeeping:
	// its old hash may still count, on the dirty list, until the next
	// fingerprint takes it out.
	*n = znode{children: n.children[:0], born: n.born[:0], fp: n.fp, counted: n.counted, dirty: n.dirty}
	return n
}

// childNames returns a copy of n's children, sorted.
func childNames(n *znode) []string { return slices.Clone(n.children) }
