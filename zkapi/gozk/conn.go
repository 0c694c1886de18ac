package gozk

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// begin is the check every request makes before reaching go-zookeeper.
func (c *Conn) begin(ctx context.Context, op, path string) error {
	if err := ctx.Err(); err != nil {
		return proto.Wrap(op, path, err)
	}
	if c.closing.Load() {
		return proto.Wrap(op, path, zkapi.ErrClosed)
	}
	return nil
}

// fail maps and wraps the error of a go-zookeeper call.
func (c *Conn) fail(op, path string, err error) error {
	return proto.Wrap(op, path, mapError(err, c.closing.Load()))
}

// createFlags returns go-zookeeper's flags for mode, or an error for a mode
// zkapi does not define.
func createFlags(mode zkapi.CreateMode) (int32, error) {
	switch mode {
	case zkapi.Persistent:
		return zk.FlagPersistent, nil
	case zkapi.Ephemeral:
		return zk.FlagEphemeral, nil
	case zkapi.PersistentSequential:
		return zk.FlagSequence, nil
	case zkapi.EphemeralSequential:
		return zk.FlagEphemeral | zk.FlagSequence, nil
	case zkapi.Container:
		return zk.FlagContainer, nil
	case zkapi.PersistentWithTTL:
		return zk.FlagTTL, nil
	case zkapi.PersistentSequentialWithTTL:
		return zk.FlagPersistentSequentialWithTTL, nil
	}
	return 0, fmt.Errorf("%w: invalid create mode %v", zkapi.ErrBadArguments, mode)
}

// Create implements zkapi.Conn. Container nodes go through go-zookeeper's
// CreateContainer (opcode createContainer); the others through Create.
func (c *Conn) Create(ctx context.Context, path string, data []byte, mode zkapi.CreateMode) (string, error) {
	return c.create(ctx, path, data, mode, openACL)
}

func (c *Conn) create(ctx context.Context, path string, data []byte, mode zkapi.CreateMode, acl []zk.ACL) (string, error) {
	if err := c.begin(ctx, "create", path); err != nil {
		return "", err
	}
	flags, err := createFlags(mode)
	if err != nil {
		return "", proto.Wrap("create", path, err)
	}
	var name string
	if mode == zkapi.Container {
		name, err = c.zc.CreateContainer(path, data, flags, acl)
	} else {
		name, err = c.zc.Create(path, data, flags, acl)
	}
	if err != nil {
		return "", c.fail("create", path, err)
	}
	return name, nil
}

// CreateTTL implements zkapi.TTLCreator through go-zookeeper's
// CreateTTL (opcode createTTL), which refuses a mode other than a TTL
// mode before sending. (Create refuses a TTL mode the same way.)
func (c *Conn) CreateTTL(ctx context.Context, path string, data []byte, mode zkapi.CreateMode, ttlMillis int64) (string, error) {
	if err := c.begin(ctx, "create", path); err != nil {
		return "", err
	}
	flags, err := createFlags(mode)
	if err != nil {
		return "", proto.Wrap("create", path, err)
	}
	name, err := c.zc.CreateTTL(path, data, flags, openACL, time.Duration(ttlMillis)*time.Millisecond)
	if err != nil {
		return "", c.fail("create", path, err)
	}
	return name, nil
}

// Delete implements zkapi.Conn.
func (c *Conn) Delete(ctx context.Context, path string, version int32) error {
	if err := c.begin(ctx, "delete", path); err != nil {
		return err
	}
	if err := c.zc.Delete(path, version); err != nil {
		return c.fail("delete", path, err)
	}
	return nil
}

// Exists implements zkapi.Conn.
func (c *Conn) Exists(ctx context.Context, path string) (zkapi.Stat, bool, error) {
	if err := c.begin(ctx, "exists", path); err != nil {
		return zkapi.Stat{}, false, err
	}
	ok, st, err := c.zc.Exists(path)
	if err != nil {
		return zkapi.Stat{}, false, c.fail("exists", path, err)
	}
	return statOf(ok, st), ok, nil
}

// ExistsW implements zkapi.Conn.
func (c *Conn) ExistsW(ctx context.Context, path string) (zkapi.Stat, bool, zkapi.Watch, error) {
	if err := c.begin(ctx, "exists", path); err != nil {
		return zkapi.Stat{}, false, nil, err
	}
	ok, st, ch, err := c.zc.ExistsW(path)
	if err != nil {
		return zkapi.Stat{}, false, nil, c.fail("exists", path, err)
	}
	return statOf(ok, st), ok, newWatch(ch), nil
}

// Get implements zkapi.Conn.
func (c *Conn) Get(ctx context.Context, path string) ([]byte, zkapi.Stat, error) {
	if err := c.begin(ctx, "get", path); err != nil {
		return nil, zkapi.Stat{}, err
	}
	data, st, err := c.zc.Get(path)
	if err != nil {
		return nil, zkapi.Stat{}, c.fail("get", path, err)
	}
	return data, statOf(true, st), nil
}

// GetW implements zkapi.Conn.
func (c *Conn) GetW(ctx context.Context, path string) ([]byte, zkapi.Stat, zkapi.Watch, error) {
	if err := c.begin(ctx, "get", path); err != nil {
		return nil, zkapi.Stat{}, nil, err
	}
	data, st, ch, err := c.zc.GetW(path)
	if err != nil {
		return nil, zkapi.Stat{}, nil, c.fail("get", path, err)
	}
	return data, statOf(true, st), newWatch(ch), nil
}

// Set implements zkapi.Conn.
func (c *Conn) Set(ctx context.Context, path string, data []byte, version int32) (zkapi.Stat, error) {
	if err := c.begin(ctx, "set", path); err != nil {
		return zkapi.Stat{}, err
	}
	st, err := c.zc.Set(path, data, version)
	if err != nil {
		return zkapi.Stat{}, c.fail("set", path, err)
	}
	return statOf(true, st), nil
}

// Children implements zkapi.Conn.
func (c *Conn) Children(ctx context.Context, path string) ([]string, zkapi.Stat, error) {
	if err := c.begin(ctx, "children", path); err != nil {
		return nil, zkapi.Stat{}, err
	}
	names, st, err := c.zc.Children(path)
	if err != nil {
		return nil, zkapi.Stat{}, c.fail("children", path, err)
	}
	return names, statOf(true, st), nil
}

// ChildrenW implements zkapi.Conn.
func (c *Conn) ChildrenW(ctx context.Context, path string) ([]string, zkapi.Stat, zkapi.Watch, error) {
	if err := c.begin(ctx, "children", path); err != nil {
		return nil, zkapi.Stat{}, nil, err
	}
	names, st, ch, err := c.zc.ChildrenW(path)
	if err != nil {
		return nil, zkapi.Stat{}, nil, c.fail("children", path, err)
	}
	return names, statOf(true, st), newWatch(ch), nil
}

// Sync implements zkapi.Conn.
func (c *Conn) Sync(ctx context.Context, path string) error {
	if err := c.begin(ctx, "sync", path); err != nil {
		return err
	}
	if _, err := c.zc.Sync(path); err != nil {
		return c.fail("sync", path, err)
	}
	return nil
}

// statOf converts a go-zookeeper Stat; a missing node has the zero Stat.
func statOf(exists bool, st *zk.Stat) zkapi.Stat {
	if !exists || st == nil {
		return zkapi.Stat{}
	}
	return zkapi.Stat{
		Czxid:          st.Czxid,
		Mzxid:          st.Mzxid,
		Ctime:          st.Ctime,
		Mtime:          st.Mtime,
		Version:        st.Version,
		Cversion:       st.Cversion,
		Aversion:       st.Aversion,
		EphemeralOwner: st.EphemeralOwner,
		DataLength:     st.DataLength,
		NumChildren:    st.NumChildren,
		Pzxid:          st.Pzxid,
	}
}
