package history

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/zksim/zksim/zkapi"
)

// LostDelete is a node the servers told a client they had deleted, and
// that was there again afterwards where ZooKeeper's guarantees say it
// cannot be: the ensemble lost a write it had acknowledged. A recipe
// cannot cause this, nor survive it; a run that shows one judges the
// servers, not the recipe.
type LostDelete struct {
	Path    string
	Client  int   // who deleted it
	Session int64 // the session that deleted it
	Deleted int64 // when the delete's success returned
	Seen    int64 // when the node was seen again
	// Final: it was seen in the listing after a sync at the run's end;
	// otherwise by the deleting client itself, on the same session.
	Final bool
}

// LostDeletes finds the acknowledged deletes that the servers later
// undid, from the recorded history es and the nodes (absolute paths)
// listed once every client was done, after a sync, at time end. Only
// sightings ZooKeeper's guarantees rule out count:
//
//   - The deleting client's own later read on the same session: a
//     client sees its own writes, and a server that has not seen a
//     client's last zxid refuses its reconnection, so no stale
//     follower can show it the node again.
//   - The final listing: sync brings the listing server up to the
//     leader, whose committed state holds every acknowledged delete.
//
// Another client's read is no evidence: it may come from a follower
// that lags, which ZooKeeper allows. The names the recipes create are
// sequential, so a deleted path is never created again by right; a
// create that returns the same path again is itself a lost write and
// counts no less.
func LostDeletes(es []Entry, final []string, end int64) []LostDelete {
	multis := map[int][]zkapi.Op{} // a multi's ops, by call ID: its Return has none
	for _, e := range es {
		if e.Kind == Call && e.Op == "multi" {
			multis[e.ID] = e.Ops
		}
	}
	var lost []LostDelete
	for i, e := range es {
		if e.Kind != Return || e.Err != nil {
			continue
		}
		for _, p := range deleted(e, multis) {
			if l, ok := seenAgain(es[i+1:], final, end, e, p); ok {
				lost = append(lost, l)
			}
		}
	}
	sort.SliceStable(lost, func(i, j int) bool { return lost[i].Seen < lost[j].Seen })
	return lost
}

// deleted is what the successful Return ret deleted: a delete's path,
// or the paths of its multi's delete ops (multis, by call ID).
func deleted(ret Entry, multis map[int][]zkapi.Op) []string {
	switch ret.Op {
	case "delete":
		return []string{ret.Path}
	case "multi":
		var ps []string
		for _, op := range multis[ret.ID] {
			if d, ok := op.(zkapi.DeleteOp); ok {
				ps = append(ps, d.Path)
			}
		}
		return ps
	}
	return nil
}

// seenAgain looks, in the entries after the delete's Return del, for a
// sighting of p that only a lost delete explains.
func seenAgain(after []Entry, final []string, end int64, del Entry, p string) (LostDelete, bool) {
	l := LostDelete{Path: p, Client: del.Client, Session: del.Session.ID, Deleted: del.At}
	for _, e := range after {
		if e.Client != del.Client || e.Kind != Return || e.Err != nil {
			continue
		}
		if e.Session.ID != del.Session.ID {
			break // a new session: no longer bound to see its old writes
		}
		if shows(e, p) {
			l.Seen = e.At
			return l, true
		}
	}
	if slices.Contains(final, p) {
		l.Seen, l.Final = end, true
		return l, true
	}
	return l, false
}

// shows reports whether the successful Return e saw node p: a read of
// p that found it, a listing of its parent that named it, or a create
// that returned it.
func shows(e Entry, p string) bool {
	switch e.Op {
	case "exists", "existsw", "getw", "get":
		return e.Path == p && e.Result == "exists"
	case "children", "childrenw":
		return e.Path == path.Dir(p) && slices.Contains(e.Names, path.Base(p))
	case "create", "multi":
		return slices.Contains(strings.Fields(e.Result), p)
	}
	return false
}
