package machine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// doCreate checks in the server's order (PrepRequestProcessor): mode and
// TTL -> slash and NUL -> the new ACL (fixupACL) -> parent missing ->
// CREATE on the parent -> path syntax (after the sequence suffix is
// appended) -> node exists -> parent ephemeral. It returns the path
// created, "" with an error.
func (m *Machine) doCreate(s *session, r proto.Create) (string, error) {
	if !plainMode(r) {
		if err := m.createModeError(r); err != nil {
			return "", err
		}
	}
	parentPath, err := m.parentForWrite(r.Path)
	if err != nil {
		return "", err
	}
	acl, err := fixupACL(s, r.ACL, m.sasl)
	if err != nil {
		return "", err
	}
	tree := m.leader().tree
	parent := tree[parentPath]
	if parent == nil {
		return "", zkapi.ErrNoNode
	}
	if err := checkACL(s, parent.acl, zkapi.PermCreate); err != nil {
		return "", err
	}
	path := r.Path
	if proto.IsSequential(r.Mode) {
		path = sequentialPath(path, parent.cversion)
	}
	if err := validatePath(path); err != nil {
		return "", err
	}
	if tree[path] != nil {
		return "", zkapi.ErrNodeExists
	}
	if o := parent.stat.EphemeralOwner; o != 0 && o != containerOwner && !isTTLOwner(o) {
		return "", zkapi.ErrNoChildrenForEphemerals
	}
	var owner int64
	switch {
	case proto.IsEphemeral(r.Mode):
		owner = s.id
	case r.Mode == zkapi.Container:
		owner = containerOwner
	case proto.IsTTL(r.Mode):
		owner = ttlOwner(r.TTLMillis)
	}
	m.addNode(path, r.Data, acl, owner, where{parent: parent, parentPath: parentPath})
	return path, nil
}

// parentForWrite is the server's first check of a create or delete path
// (PrepRequestProcessor): it needs a '/' and no NUL; the full syntax check
// comes later, after the parent lookup. The parent of "/x" is the root.
func (m *Machine) parentForWrite(path string) (string, error) {
	i := strings.LastIndexByte(path, '/')
	if i < 0 || strings.IndexByte(path, 0) >= 0 {
		return "", badWritePath(path)
	}
	if i == 0 {
		return "/", nil
	}
	return path[:i], nil
}

// badWritePath is parentForWrite's error: out of line, as it is rare.
//
//go:noinline
func badWritePath(path string) error {
	return fmt.Errorf("%w: %q", zkapi.ErrBadArguments, path)
}

// doDelete checks: no slash, NUL or special path -> parent missing ->
// DELETE on the parent -> node missing -> bad version -> not empty. There
// is no syntax check: "/a/" is simply a node that does not exist.
func (m *Machine) doDelete(s *session, path string, version int32) error {
	parentPath, err := m.parentForWrite(path)
	if err != nil {
		return err
	}
	if special(path) {
		return fmt.Errorf("%w: %s cannot be deleted", zkapi.ErrBadArguments, path)
	}
	tree := m.leader().tree
	parent := tree[parentPath]
	if parent == nil {
		return zkapi.ErrNoNode
	}
	if err := checkACL(s, parent.acl, zkapi.PermDelete); err != nil {
		return err
	}
	n := tree[path]
	if n == nil {
		return zkapi.ErrNoNode
	}
	if version != zkapi.AnyVersion && version != n.stat.Version {
		return zkapi.ErrBadVersion
	}
	if len(n.children) > 0 {
		return zkapi.ErrNotEmpty
	}
	m.removeNode(path, where{parent: parent, n: n, parentPath: parentPath})
	return nil
}

// doSetData checks: path syntax -> node missing -> WRITE -> version. The
// Stat is zero with an error.
func (m *Machine) doSetData(s *session, path string, data []byte, version int32) (zkapi.Stat, error) {
	n, err := m.lookupWrite(path)
	if err != nil {
		return zkapi.Stat{}, err
	}
	if err := checkACL(s, n.acl, zkapi.PermWrite); err != nil {
		return zkapi.Stat{}, err
	}
	if version != zkapi.AnyVersion && version != n.stat.Version {
		return zkapi.Stat{}, zkapi.ErrBadVersion
	}
	m.setNodeData(path, data, where{n: n})
	return n.view(), nil
}

// check (a multi's check op) checks: path syntax -> node missing -> READ
// -> version.
func (m *Machine) check(s *session, path string, version int32) error {
	n, err := m.lookupWrite(path)
	if err != nil {
		return err
	}
	if err := checkACL(s, n.acl, zkapi.PermRead); err != nil {
		return err
	}
	if version != zkapi.AnyVersion && version != n.stat.Version {
		return zkapi.ErrBadVersion
	}
	return nil
}

// lookupWrite: setData and check validate the whole path first, and are
// decided by the leader. A node found needs no validation: every node's
// path was validated when it was created (doCreate; the four initial
// nodes' are valid), so it would pass. Only a path without a node is
// checked, to tell BadArguments from NoNode.
func (m *Machine) lookupWrite(path string) (*znode, error) {
	if n := m.leader().tree[path]; n != nil {
		return n, nil
	}
	if err := validatePath(path); err != nil {
		return nil, err
	}
	return nil, zkapi.ErrNoNode // a valid path has no NUL for lookup to refuse
}

// lookup is the read path (FinalRequestProcessor): only NUL is refused;
// any other string is a node name that exists or not.
func lookup(r *replica, path string) (*znode, error) {
	if strings.IndexByte(path, 0) >= 0 {
		return nil, nulError(path)
	}
	n := r.tree[path]
	if n == nil {
		return nil, zkapi.ErrNoNode
	}
	return n, nil
}

// nulError is a read's error for a path with a NUL: out of line, as it
// is rare.
//
//go:noinline
func nulError(path string) error {
	return fmt.Errorf("%w: NUL in %q", zkapi.ErrBadArguments, path)
}

// exists leaves a watch whether or not the node exists, and checks no
// ACL (FinalRequestProcessor: statNode alone).
func (m *Machine) exists(s *session, r proto.Exists, out *proto.Reply) {
	if strings.IndexByte(r.Path, 0) >= 0 {
		out.Err = nulError(r.Path)
		return
	}
	if r.Watch {
		m.watch(s, r.Path, watchData)
	}
	n := m.replicas[s.replica].tree[r.Path]
	if n == nil {
		out.Err = zkapi.ErrNoNode
		return
	}
	out.Stat = n.view()
}

// readNode is path's node on the session's replica if the session may
// READ it: getData and getChildren check node missing -> READ, and a
// refused read leaves no watch.
func (m *Machine) readNode(s *session, path string) (*znode, error) {
	n, err := lookup(m.replicas[s.replica], path)
	if err != nil {
		return nil, err
	}
	if err := checkACL(s, n.acl, zkapi.PermRead); err != nil {
		return nil, err
	}
	return n, nil
}

// getData and getChildren check: node missing -> READ; a refused read
// leaves no watch.
func (m *Machine) getData(s *session, r proto.GetData, out *proto.Reply) {
	n, err := m.readNode(s, r.Path)
	if err != nil {
		out.Err = err
		return
	}
	if r.Watch {
		m.watch(s, r.Path, watchData)
	}
	out.Data, out.Stat = slices.Clone(n.data), n.view()
}

func (m *Machine) getChildren(s *session, r proto.GetChildren, out *proto.Reply) {
	n, err := m.readNode(s, r.Path)
	if err != nil {
		out.Err = err
		return
	}
	if r.Watch {
		m.watch(s, r.Path, watchChild)
	}
	if m.cfg.SortChildren || m.cfg.Seed != 0 {
		out.Children = m.otherListing(n)
	} else {
		out.Children = n.listing(m.lists.take(len(n.children), listChunk))
	}
	out.Stat = n.view()
}

// otherListing is n's children sorted (Config.SortChildren) or shuffled
// (Config.Seed) instead of in the server's order: out of line, as only
// some tests ask for them.
//
//go:noinline
func (m *Machine) otherListing(n *znode) []string {
	if m.cfg.SortChildren {
		return append([]string{}, n.children...)
	}
	names := childNames(n) // as before issue 26, leaves' nil included
	m.rng.shuffle(names)   // see Config.Seed
	return names
}

// multi applies ops in order under one zxid; on the first failure every
// change is undone and no watch fires. Results follow the server: ops
// before the failure OK, the failing op its code, later ones
// RuntimeInconsistency. It returns the results and the first failure.
func (m *Machine) multi(s *session, r proto.Multi) ([]zkapi.OpResult, error) {
	m.beginUndo()
	defer m.endUndo()
	results := m.results.take(len(r.Ops), resultChunk)
	for i, op := range r.Ops {
		res, err := m.multiOp(s, op)
		if err == nil {
			results[i] = res
			continue
		}
		m.rollback()
		for j := range results {
			switch {
			case j < i:
				results[j] = zkapi.OpResult{}
			case j == i:
				results[j] = zkapi.OpResult{Err: err}
			default:
				results[j] = zkapi.OpResult{Err: zkapi.ErrRuntimeInconsistency}
			}
		}
		return results, err
	}
	return results, nil
}

func (m *Machine) multiOp(s *session, op zkapi.Op) (zkapi.OpResult, error) {
	switch o := op.(type) {
	case zkapi.CreateOp:
		p, err := m.doCreate(s, proto.Create{Path: o.Path, Data: o.Data, Mode: o.Mode, TTLMillis: o.TTLMillis, ACL: o.ACL})
		return zkapi.OpResult{Path: p}, err
	case zkapi.DeleteOp:
		return zkapi.OpResult{}, m.doDelete(s, o.Path, o.Version)
	case zkapi.SetOp:
		st, err := m.doSetData(s, o.Path, o.Data, o.Version)
		return zkapi.OpResult{Stat: st}, err
	case zkapi.CheckOp:
		return zkapi.OpResult{}, m.check(s, o.Path, o.Version)
	case nil:
		return zkapi.OpResult{}, fmt.Errorf("%w: nil op in multi", zkapi.ErrBadArguments)
	}
	return zkapi.OpResult{}, fmt.Errorf("%w: unsupported multi op %T", zkapi.ErrBadArguments, op)
}
