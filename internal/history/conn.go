package history

import (
	"context"
	"slices"

	"github.com/zksim/zksim/zkapi"
)

// Conn returns c recording as client's: every call and return, and the
// Wait calls and returns of the watches it sets.
func (r *Recorder) Conn(client int, c zkapi.Conn) zkapi.Conn {
	return &conn{r: r, client: client, c: c}
}

// conn is a recording zkapi.Conn.
type conn struct {
	r      *Recorder
	client int
	c      zkapi.Conn
}

var _ zkapi.Conn = (*conn)(nil)

// call records a call and returns its number.
func (c *conn) call(op, path string, mode zkapi.CreateMode, ops []zkapi.Op) int {
	return c.r.add(Entry{Client: c.client, Kind: Call, Op: op, Path: path, Mode: mode, Ops: ops, Session: c.c.Session()}).ID
}

// ret records the return of call id; a non-nil w is a watch set, which
// it returns wrapped.
func (c *conn) ret(id int, op, path, result string, names []string, err error, w zkapi.Watch) zkapi.Watch {
	e := Entry{Client: c.client, Kind: Return, ID: id, Op: op, Path: path, Result: result, Names: slices.Clone(names), Err: err, Session: c.c.Session()}
	if w != nil {
		e.Watch = -1
	}
	e = c.r.add(e)
	if w == nil {
		return nil
	}
	return &watch{c: c, id: e.Watch, path: path, w: w}
}

func (c *conn) Create(ctx context.Context, path string, data []byte, mode zkapi.CreateMode) (string, error) {
	id := c.call("create", path, mode, nil)
	name, err := c.c.Create(ctx, path, data, mode)
	c.ret(id, "create", path, name, nil, err, nil)
	return name, err
}

func (c *conn) Delete(ctx context.Context, path string, version int32) error {
	id := c.call("delete", path, 0, nil)
	err := c.c.Delete(ctx, path, version)
	c.ret(id, "delete", path, "", nil, err, nil)
	return err
}

func (c *conn) Exists(ctx context.Context, path string) (zkapi.Stat, bool, error) {
	id := c.call("exists", path, 0, nil)
	st, ok, err := c.c.Exists(ctx, path)
	c.ret(id, "exists", path, existed(ok), nil, err, nil)
	return st, ok, err
}

func (c *conn) ExistsW(ctx context.Context, path string) (zkapi.Stat, bool, zkapi.Watch, error) {
	id := c.call("existsw", path, 0, nil)
	st, ok, w, err := c.c.ExistsW(ctx, path)
	return st, ok, c.ret(id, "existsw", path, existed(ok), nil, err, w), err
}

func (c *conn) Get(ctx context.Context, path string) ([]byte, zkapi.Stat, error) {
	id := c.call("get", path, 0, nil)
	data, st, err := c.c.Get(ctx, path)
	c.ret(id, "get", path, existed(err == nil), nil, err, nil)
	return data, st, err
}

func (c *conn) GetW(ctx context.Context, path string) ([]byte, zkapi.Stat, zkapi.Watch, error) {
	id := c.call("getw", path, 0, nil)
	data, st, w, err := c.c.GetW(ctx, path)
	return data, st, c.ret(id, "getw", path, existed(err == nil), nil, err, w), err
}

func (c *conn) Set(ctx context.Context, path string, data []byte, version int32) (zkapi.Stat, error) {
	id := c.call("set", path, 0, nil)
	st, err := c.c.Set(ctx, path, data, version)
	c.ret(id, "set", path, "", nil, err, nil)
	return st, err
}

func (c *conn) Children(ctx context.Context, path string) ([]string, zkapi.Stat, error) {
	id := c.call("children", path, 0, nil)
	names, st, err := c.c.Children(ctx, path)
	c.ret(id, "children", path, "", names, err, nil)
	return names, st, err
}

func (c *conn) ChildrenW(ctx context.Context, path string) ([]string, zkapi.Stat, zkapi.Watch, error) {
	id := c.call("childrenw", path, 0, nil)
	names, st, w, err := c.c.ChildrenW(ctx, path)
	return names, st, c.ret(id, "childrenw", path, "", names, err, w), err
}

// Multi records its ops on the call, and each created path, in op order
// and separated by spaces, as the result.
func (c *conn) Multi(ctx context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error) {
	id := c.call("multi", "", 0, ops)
	res, err := c.c.Multi(ctx, ops...)
	created := ""
	for _, r := range res {
		if r.Path != "" && r.Err == nil {
			created += " " + r.Path
		}
	}
	if len(created) > 0 {
		created = created[1:]
	}
	c.ret(id, "multi", "", created, nil, err, nil)
	return res, err
}

func (c *conn) Sync(ctx context.Context, path string) error {
	id := c.call("sync", path, 0, nil)
	err := c.c.Sync(ctx, path)
	c.ret(id, "sync", path, "", nil, err, nil)
	return err
}

func (c *conn) Session() zkapi.Session { return c.c.Session() }

func (c *conn) WaitSession(ctx context.Context, seq uint64) (zkapi.Session, error) {
	return c.c.WaitSession(ctx, seq)
}

func (c *conn) Close() error {
	id := c.call("close", "", 0, nil)
	err := c.c.Close()
	c.ret(id, "close", "", "", nil, err, nil)
	return err
}

// existed is the Result of a read of a node: "exists" if
// the node was there.
func existed(ok bool) string {
	if ok {
		return "exists"
	}
	return ""
}

// watch is a recording zkapi.Watch.
type watch struct {
	c    *conn
	id   int
	path string
	w    zkapi.Watch
}

func (w *watch) Wait(ctx context.Context) (zkapi.Event, error) {
	c := w.c
	c.r.add(Entry{Client: c.client, Kind: Wait, Watch: w.id, Path: w.path, Session: c.c.Session()})
	ev, err := w.w.Wait(ctx)
	if err == nil {
		c.r.add(Entry{Client: c.client, Kind: Woken, Watch: w.id, Path: w.path, Event: ev, Session: c.c.Session()})
	}
	return ev, err
}
