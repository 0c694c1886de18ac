package fakezk

import (
	"context"

	"github.com/zksim/zksim/internal/zkclient"
	"github.com/zksim/zksim/zkapi"
)

// The request methods map each call to a Request and its Reply back as
// every client of a Machine does (zkclient.Calls), with the Conn as the
// transport. They are spelled out here, not embedded, so that the Conn's
// documentation lists them.

func (c *Conn) calls() zkclient.Calls { return zkclient.Calls{T: c} }

// Create implements zkapi.Conn. A TTL mode is refused before anything is
// sent, as go-zookeeper's Create refuses it: TTL nodes go through
// CreateTTL.
func (c *Conn) Create(ctx context.Context, path string, data []byte, mode zkapi.CreateMode) (string, error) {
	return c.calls().Create(ctx, path, data, mode)
}

// CreateTTL implements zkapi.TTLCreator as go-zookeeper's CreateTTL does:
// a mode other than a TTL mode is refused before anything is sent.
func (c *Conn) CreateTTL(ctx context.Context, path string, data []byte, mode zkapi.CreateMode, ttlMillis int64) (string, error) {
	return c.calls().CreateTTL(ctx, path, data, mode, ttlMillis)
}

// CreateWithACL implements zkapi.ACLConn.
func (c *Conn) CreateWithACL(ctx context.Context, path string, data []byte, mode zkapi.CreateMode, acl []zkapi.ACL) (string, error) {
	return c.calls().CreateWithACL(ctx, path, data, mode, acl)
}

// Delete implements zkapi.Conn.
func (c *Conn) Delete(ctx context.Context, path string, version int32) error {
	return c.calls().Delete(ctx, path, version)
}

// Exists implements zkapi.Conn.
func (c *Conn) Exists(ctx context.Context, path string) (zkapi.Stat, bool, error) {
	return c.calls().Exists(ctx, path)
}

// ExistsW implements zkapi.Conn.
func (c *Conn) ExistsW(ctx context.Context, path string) (zkapi.Stat, bool, zkapi.Watch, error) {
	return c.calls().ExistsW(ctx, path)
}

// Get implements zkapi.Conn.
func (c *Conn) Get(ctx context.Context, path string) ([]byte, zkapi.Stat, error) {
	return c.calls().Get(ctx, path)
}

// GetW implements zkapi.Conn.
func (c *Conn) GetW(ctx context.Context, path string) ([]byte, zkapi.Stat, zkapi.Watch, error) {
	return c.calls().GetW(ctx, path)
}

// Set implements zkapi.Conn.
func (c *Conn) Set(ctx context.Context, path string, data []byte, version int32) (zkapi.Stat, error) {
	return c.calls().Set(ctx, path, data, version)
}

// Children implements zkapi.Conn.
func (c *Conn) Children(ctx context.Context, path string) ([]string, zkapi.Stat, error) {
	return c.calls().Children(ctx, path)
}

// ChildrenW implements zkapi.Conn.
func (c *Conn) ChildrenW(ctx context.Context, path string) ([]string, zkapi.Stat, zkapi.Watch, error) {
	return c.calls().ChildrenW(ctx, path)
}

// Multi implements zkapi.Conn; results are per op, success or failure.
func (c *Conn) Multi(ctx context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error) {
	return c.calls().Multi(ctx, ops...)
}

// Sync implements zkapi.Conn.
func (c *Conn) Sync(ctx context.Context, path string) error {
	return c.calls().Sync(ctx, path)
}

// GetACL implements zkapi.ACLConn.
func (c *Conn) GetACL(ctx context.Context, path string) ([]zkapi.ACL, zkapi.Stat, error) {
	return c.calls().GetACL(ctx, path)
}

// SetACL implements zkapi.ACLConn.
func (c *Conn) SetACL(ctx context.Context, path string, acl []zkapi.ACL, version int32) (zkapi.Stat, error) {
	return c.calls().SetACL(ctx, path, acl, version)
}
