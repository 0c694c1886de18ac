package zkclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// Transport sends one request for a client of a Machine and returns the
// reply, the watch the request left (if any) and the error, wrapped with
// op and path. fakezk's Conn and the simulator's are Transports.
type Transport interface {
	Do(ctx context.Context, op, path string, req proto.Request) (proto.Reply, zkapi.Watch, error)
}

// Calls implements zkapi.Conn's request methods over a Transport, so that
// every client of a Machine maps requests and replies the same way. A
// Calls keeps the boxes of its last requests (reuse), so it is for one
// goroutine at a time: a Conn that goroutines share makes one per call.
type Calls struct {
	T Transport

	// children and sync are the last such requests sent, boxed: a recipe
	// lists and syncs its directory again and again, and an equal request
	// can go in the same box (the value in an interface never changes)
	// rather than in a new one.
	children, sync proto.Request
}

// reuse returns req boxed, in *last's box if that holds an equal request.
func reuse[R interface {
	proto.Request
	comparable
}](last *proto.Request, req R) proto.Request {
	if l, ok := (*last).(R); !ok || l != req {
		*last = req
	}
	return *last
}

// Create implements zkapi.Conn. A TTL mode is refused before anything
// is sent, as go-zookeeper's Create refuses it (ErrInvalidFlags): TTL
// nodes go through CreateTTL.
func (c *Calls) Create(ctx context.Context, path string, data []byte, mode zkapi.CreateMode) (string, error) {
	if proto.IsTTL(mode) {
		return "", proto.Wrap("create", path, fmt.Errorf("%w: mode %s needs CreateTTL", zkapi.ErrBadArguments, mode))
	}
	r, _, err := c.T.Do(ctx, "create", path, proto.Create{Path: path, Data: data, Mode: mode})
	return r.Path, err
}

// CreateTTL implements zkapi.TTLCreator as go-zookeeper's CreateTTL does:
// a mode other than a TTL mode is refused before anything is sent.
func (c *Calls) CreateTTL(ctx context.Context, path string, data []byte, mode zkapi.CreateMode, ttlMillis int64) (string, error) {
	if !proto.IsTTL(mode) {
		return "", proto.Wrap("create", path, fmt.Errorf("%w: CreateTTL needs a TTL mode, not %s", zkapi.ErrBadArguments, mode))
	}
	r, _, err := c.T.Do(ctx, "create", path, proto.Create{Path: path, Data: data, Mode: mode, TTLMillis: ttlMillis})
	return r.Path, err
}

// Delete implements zkapi.Conn.
func (c *Calls) Delete(ctx context.Context, path string, version int32) error {
	_, _, err := c.T.Do(ctx, "delete", path, proto.Delete{Path: path, Version: version})
	return err
}

// Exists implements zkapi.Conn.
func (c *Calls) Exists(ctx context.Context, path string) (zkapi.Stat, bool, error) {
	st, ok, _, err := c.exists(ctx, path, false)
	return st, ok, err
}

// ExistsW implements zkapi.Conn.
func (c *Calls) ExistsW(ctx context.Context, path string) (zkapi.Stat, bool, zkapi.Watch, error) {
	return c.exists(ctx, path, true)
}

func (c *Calls) exists(ctx context.Context, path string, watch bool) (zkapi.Stat, bool, zkapi.Watch, error) {
	r, w, err := c.T.Do(ctx, "exists", path, proto.Exists{Path: path, Watch: watch})
	if errors.Is(err, zkapi.ErrNoNode) {
		return zkapi.Stat{}, false, w, nil
	}
	return r.Stat, err == nil, w, err
}

// Get implements zkapi.Conn.
func (c *Calls) Get(ctx context.Context, path string) ([]byte, zkapi.Stat, error) {
	r, _, err := c.T.Do(ctx, "get", path, proto.GetData{Path: path})
	return r.Data, r.Stat, err
}

// GetW implements zkapi.Conn.
func (c *Calls) GetW(ctx context.Context, path string) ([]byte, zkapi.Stat, zkapi.Watch, error) {
	r, w, err := c.T.Do(ctx, "get", path, proto.GetData{Path: path, Watch: true})
	return r.Data, r.Stat, w, err
}

// Set implements zkapi.Conn.
func (c *Calls) Set(ctx context.Context, path string, data []byte, version int32) (zkapi.Stat, error) {
	r, _, err := c.T.Do(ctx, "set", path, proto.SetData{Path: path, Data: data, Version: version})
	return r.Stat, err
}

// Children implements zkapi.Conn.
func (c *Calls) Children(ctx context.Context, path string) ([]string, zkapi.Stat, error) {
	r, _, err := c.T.Do(ctx, "children", path, reuse(&c.children, proto.GetChildren{Path: path}))
	return r.Children, r.Stat, err
}

// ChildrenW implements zkapi.Conn.
func (c *Calls) ChildrenW(ctx context.Context, path string) ([]string, zkapi.Stat, zkapi.Watch, error) {
	r, w, err := c.T.Do(ctx, "children", path, reuse(&c.children, proto.GetChildren{Path: path, Watch: true}))
	return r.Children, r.Stat, w, err
}

// Multi implements zkapi.Conn; results are per op, success or failure.
func (c *Calls) Multi(ctx context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error) {
	path := ""
	if len(ops) > 0 {
		path = proto.OpPath(ops[0])
	}
	r, _, err := c.T.Do(ctx, "multi", path, proto.Multi{Ops: ops})
	return r.Results, err
}

// Sync implements zkapi.Conn.
func (c *Calls) Sync(ctx context.Context, path string) error {
	_, _, err := c.T.Do(ctx, "sync", path, reuse(&c.sync, proto.Sync{Path: path}))
	return err
}

// CreateWithACL implements zkapi.ACLConn.
func (c *Calls) CreateWithACL(ctx context.Context, path string, data []byte, mode zkapi.CreateMode, acl []zkapi.ACL) (string, error) {
	r, _, err := c.T.Do(ctx, "create", path, proto.Create{Path: path, Data: data, Mode: mode, ACL: acl})
	return r.Path, err
}

// GetACL implements zkapi.ACLConn.
func (c *Calls) GetACL(ctx context.Context, path string) ([]zkapi.ACL, zkapi.Stat, error) {
	r, _, err := c.T.Do(ctx, "getacl", path, proto.GetACL{Path: path})
	return r.ACL, r.Stat, err
}

// SetACL implements zkapi.ACLConn.
func (c *Calls) SetACL(ctx context.Context, path string, acl []zkapi.ACL, version int32) (zkapi.Stat, error) {
	r, _, err := c.T.Do(ctx, "setacl", path, proto.SetACL{Path: path, ACL: acl, Version: version})
	return r.Stat, err
}
