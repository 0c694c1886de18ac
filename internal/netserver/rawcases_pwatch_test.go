package netserver_test

import "github.com/zksim/zksim/internal/wire"

// persistentWatches: addWatch (ZooKeeper 3.6+) and the requests that see
// or undo its watches, as DataTree.addWatch, WatchManager.triggerWatch,
// DataTree.containsWatcher, removeWatch and setWatches answer them in
// 3.8.0. Each case watches nodes under its root, and its own writes fire
// its own watches before their replies, so one connection shows every
// event.
func persistentWatches() []rawCase {
	add := func(xid int32, path string, mode int32) []byte {
		return req(xid, wire.OpAddWatch, jb{}.str(path).i32(mode))
	}
	watches := func(xid int32, op wire.Op, path string, typ int32) []byte {
		return req(xid, op, jb{}.str(path).i32(typ))
	}
	del := func(xid int32, path string) []byte { return req(xid, wire.OpDelete, jb{}.str(path).i32(-1)) }
	children := func(xid int32, path string) []byte {
		return req(xid, wire.OpGetChildren, jb{}.str(path).bool(true))
	}
	setWatches2 := func(xid int32, z int64, persistent, recursive []string) []byte {
		b := jb{}.i64(z).i32(0).i32(0).i32(0).i32(int32(len(persistent)))
		for _, p := range persistent {
			b = b.str(p)
		}
		b = b.i32(int32(len(recursive)))
		for _, p := range recursive {
			b = b.str(p)
		}
		return req(xid, wire.OpSetWatches2, b)
	}
	return []rawCase{
		{name: "persistent watch: data, children, deletion and creation of its node", send: sends(func(r string) []byte {
			p := r + "/p"
			return cat(add(1, p, 0), create(2, p, "", 0), create(3, p+"/a", "", 0), setData(4, p, "x", -1),
				setData(5, p+"/a", "y", -1), create(6, p+"/a/b", "", 0), del(7, p+"/a/b"), del(8, p+"/a"),
				del(9, p), create(10, p, "", 0), setData(11, p, "z", -1))
		})},
		{name: "recursive watch: every descendant, no NodeChildrenChanged", send: sends(func(r string) []byte {
			p := r + "/p"
			return cat(add(1, p, 1), create(2, p, "", 0), create(3, p+"/a", "", 0), create(4, p+"/a/b", "", 0),
				setData(5, p+"/a/b", "x", -1), setData(6, p, "y", -1), del(7, p+"/a/b"), del(8, p+"/a"),
				del(9, p), create(10, p, "", 0), create(11, r+"/pq", "", 0))
		})},
		{name: "standard data watch then persistent watch on one node", send: sends(func(r string) []byte {
			return cat(getData(1, r, true), add(2, r, 0), setData(3, r, "a", -1), setData(4, r, "b", -1))
		})},
		{name: "persistent watch then standard data watch on one node", send: sends(func(r string) []byte {
			return cat(add(1, r, 0), getData(2, r, true), setData(3, r, "a", -1), setData(4, r, "b", -1),
				create(5, r+"/c", "", 0), create(6, r+"/d", "", 0))
		})},
		{name: "persistent watch then standard child watch on one node", send: sends(func(r string) []byte {
			return cat(add(1, r, 0), children(2, r), create(3, r+"/c", "", 0), create(4, r+"/d", "", 0),
				setData(5, r, "a", -1), setData(6, r, "b", -1))
		})},
		{name: "persistent then recursive watch on one node", send: sends(func(r string) []byte {
			return cat(add(1, r, 0), add(2, r, 1), create(3, r+"/c", "", 0), create(4, r+"/c/d", "", 0), setData(5, r, "a", -1))
		})},
		{name: "recursive then persistent watch on one node", send: sends(func(r string) []byte {
			return cat(add(1, r, 1), add(2, r, 0), create(3, r+"/c", "", 0), create(4, r+"/c/d", "", 0), setData(5, r, "a", -1))
		})},
		{name: "recursive watch and standard watches below it", send: sends(func(r string) []byte {
			return cat(add(1, r, 1), children(2, r), exists(3, r+"/c", true), create(4, r+"/c", "", 0),
				create(5, r+"/d", "", 0), del(6, r+"/c"))
		})},
		{name: "recursive watches on a node and its child", send: sends(func(r string) []byte {
			return cat(create(1, r+"/c", "", 0), add(2, r, 1), add(3, r+"/c", 1), add(4, r+"/c", 0),
				create(5, r+"/c/d", "", 0), setData(6, r+"/c", "x", -1))
		})},
		{name: "checkWatches of a persistent watch", send: sends(func(r string) []byte {
			return cat(add(1, r, 0), watches(2, wire.OpCheckWatches, r, 1), watches(3, wire.OpCheckWatches, r, 2),
				watches(4, wire.OpCheckWatches, r, 3))
		})},
		{name: "checkWatches of a recursive watch", send: sends(func(r string) []byte {
			return cat(add(1, r, 1), watches(2, wire.OpCheckWatches, r, 1), watches(3, wire.OpCheckWatches, r, 2),
				watches(4, wire.OpCheckWatches, r, 3), watches(5, wire.OpCheckWatches, r+"/c", 3))
		})},
		{name: "checkWatches and removeWatches of another session's watches", connect: func(int64, []byte) []byte {
			return connectReq(10000, 0, nil)
		}, setup: func(e env) []byte {
			return cat(getData(xidSetup+1, e.root, true), add(xidSetup+2, e.root+"/p", 0))
		}, send: func(e env) []byte {
			return cat(watches(1, wire.OpCheckWatches, e.root, 2), watches(2, wire.OpCheckWatches, e.root+"/p", 3),
				watches(3, wire.OpRemoveWatches, e.root, 2), watches(4, wire.OpRemoveWatches, e.root+"/p", 3))
		}},
		{name: "checkWatches of type Persistent", send: sends(func(r string) []byte {
			return cat(add(1, r, 0), watches(2, wire.OpCheckWatches, r, 4))
		})},
		{name: "checkWatches of type PersistentRecursive", send: sends(func(r string) []byte {
			return cat(add(1, r, 1), watches(2, wire.OpCheckWatches, r, 5))
		})},
		{name: "removeWatches of type Persistent", send: sends(func(r string) []byte {
			return cat(add(1, r, 0), watches(2, wire.OpRemoveWatches, r, 4))
		})},
		{name: "removeWatches of type PersistentRecursive", send: sends(func(r string) []byte {
			return cat(add(1, r, 1), watches(2, wire.OpRemoveWatches, r, 5))
		})},
		{name: "removeWatches Data of a persistent watch", send: sends(func(r string) []byte {
			return cat(add(1, r, 0), watches(2, wire.OpRemoveWatches, r, 2), watches(3, wire.OpRemoveWatches, r, 2),
				setData(4, r, "a", -1), create(5, r+"/c", "", 0), watches(6, wire.OpRemoveWatches, r, 1),
				create(7, r+"/d", "", 0), watches(8, wire.OpCheckWatches, r, 3))
		})},
		{name: "removeWatches Any of a persistent watch", send: sends(func(r string) []byte {
			return cat(add(1, r, 0), watches(2, wire.OpRemoveWatches, r, 3), setData(3, r, "a", -1),
				create(4, r+"/c", "", 0), watches(5, wire.OpRemoveWatches, r, 3))
		})},
		{name: "removeWatches of a recursive watch", send: sends(func(r string) []byte {
			return cat(add(1, r, 1), watches(2, wire.OpRemoveWatches, r, 1), watches(3, wire.OpRemoveWatches, r, 2),
				create(4, r+"/c", "", 0), setData(5, r, "a", -1))
		})},
		{name: "removeWatches Data of a persistent and a standard watch", send: sends(func(r string) []byte {
			return cat(getData(1, r, true), add(2, r, 0), watches(3, wire.OpRemoveWatches, r, 2),
				setData(4, r, "a", -1), create(5, r+"/c", "", 0))
		})},
		{name: "addWatch on a missing node and a relative path", send: sends(func(r string) []byte {
			return cat(add(1, r+"/none", 0), add(2, "rel", 1), add(3, r+"/", 0), watches(4, wire.OpCheckWatches, "rel", 2))
		})},
		{name: "addWatch twice, removed once", send: sends(func(r string) []byte {
			return cat(add(1, r, 0), add(2, r, 0), watches(3, wire.OpRemoveWatches, r, 3), setData(4, r, "a", -1),
				watches(5, wire.OpCheckWatches, r, 3))
		})},
		{name: "recursive watch and multi", send: sends(func(r string) []byte {
			return cat(add(1, r, 1), req(3, wire.OpMulti, jb{}.
				mh(wire.OpCreate, false, -1).create(r+"/a", "", 0).
				mh(wire.OpCreate, false, -1).create(r+"/a/b", "", 0).
				mh(wire.OpSetData, false, -1).str(r).str("x").i32(-1).
				mh(wire.OpDelete, false, -1).str(r+"/a/b").i32(-1).mend()),
				req(4, wire.OpMulti, jb{}.
					mh(wire.OpCreate, false, -1).create(r+"/e", "", 0).
					mh(wire.OpDelete, false, -1).str(r+"/none").i32(-1).mend()))
		})},
		{name: "closeSession fires own recursive watch on own ephemerals", send: sends(func(r string) []byte {
			return cat(add(1, r, 1), create(2, r+"/e", "", 1), req(4, wire.OpCloseSession, nil))
		})},
		{name: "setWatches2 with persistent and recursive paths", send: sends(func(r string) []byte {
			return cat(create(1, r+"/p", "", 0), create(2, r+"/q", "", 0),
				setWatches2(-8, 0, []string{r + "/p"}, []string{r + "/q"}),
				create(3, r+"/p/a", "", 0), setData(4, r+"/p", "x", -1), create(5, r+"/q/a", "", 0),
				create(6, r+"/q/a/b", "", 0), watches(7, wire.OpCheckWatches, r+"/p", 1),
				watches(8, wire.OpCheckWatches, r+"/q", 2), watches(9, wire.OpCheckWatches, r+"/q", 1))
		})},
		{name: "setWatches2 fires nothing for persistent watches on changed nodes", setup: func(e env) []byte {
			return cat(create(xidSetup+1, e.root+"/p", "", 0), create(xidSetup+2, e.root+"/p/old", "", 0),
				setData(xidSetup+3, e.root+"/p", "x", -1))
		}, send: func(e env) []byte {
			// Relative to the zxid before the setup writes: every node
			// changed since, as if they had changed while disconnected.
			return cat(setWatches2(-8, e.z0-3, []string{e.root + "/p", e.root + "/gone"}, []string{e.root}),
				setData(1, e.root+"/p", "y", -1))
		}},
		{name: "setWatches2 on a resumed session", connect: func(sid int64, pw []byte) []byte {
			return connectReq(10000, sid, pw)
		}, setup: func(e env) []byte {
			return cat(add(xidSetup+1, e.root, 1), create(xidSetup+2, e.root+"/a", "", 0))
		}, send: func(e env) []byte {
			return cat(create(1, e.root+"/b", "", 0), setWatches2(-8, e.z0, nil, []string{e.root}),
				create(2, e.root+"/c", "", 0))
		}},
	}
}
