package gozk

import (
	"context"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/zkapi"
)

var _ zkapi.ACLConn = (*Conn)(nil)

// openACL is the ACL of every node Create makes.
var openACL = zk.WorldACL(zk.PermAll)

// toZK converts an ACL for go-zookeeper; nil is OpenACL, and an empty
// list stays empty (the server refuses it: InvalidACL).
func toZK(acl []zkapi.ACL) []zk.ACL {
	if acl == nil {
		return openACL
	}
	out := make([]zk.ACL, len(acl))
	for i, a := range acl {
		out[i] = zk.ACL{Perms: a.Perms, Scheme: a.Scheme, ID: a.ID}
	}
	return out
}

func fromZK(acl []zk.ACL) []zkapi.ACL {
	out := make([]zkapi.ACL, len(acl))
	for i, a := range acl {
		out[i] = zkapi.ACL{Perms: a.Perms, Scheme: a.Scheme, ID: a.ID}
	}
	return out
}

// CreateWithACL implements zkapi.ACLConn.
func (c *Conn) CreateWithACL(ctx context.Context, path string, data []byte, mode zkapi.CreateMode, acl []zkapi.ACL) (string, error) {
	return c.create(ctx, path, data, mode, toZK(acl))
}

// AddAuth implements zkapi.ACLConn: go-zookeeper remembers the
// credentials it was given and re-sends them on every new connection,
// before the watches.
func (c *Conn) AddAuth(ctx context.Context, scheme string, auth []byte) error {
	if err := c.begin(ctx, "addauth", ""); err != nil {
		return err
	}
	if err := c.zc.AddAuth(scheme, auth); err != nil {
		return c.fail("addauth", "", err)
	}
	return nil
}

// GetACL implements zkapi.ACLConn.
func (c *Conn) GetACL(ctx context.Context, path string) ([]zkapi.ACL, zkapi.Stat, error) {
	if err := c.begin(ctx, "getacl", path); err != nil {
		return nil, zkapi.Stat{}, err
	}
	acl, st, err := c.zc.GetACL(path)
	if err != nil {
		return nil, zkapi.Stat{}, c.fail("getacl", path, err)
	}
	return fromZK(acl), statOf(true, st), nil
}

// SetACL implements zkapi.ACLConn.
func (c *Conn) SetACL(ctx context.Context, path string, acl []zkapi.ACL, version int32) (zkapi.Stat, error) {
	if err := c.begin(ctx, "setacl", path); err != nil {
		return zkapi.Stat{}, err
	}
	st, err := c.zc.SetACL(path, toZK(acl), version)
	if err != nil {
		return zkapi.Stat{}, c.fail("setacl", path, err)
	}
	return statOf(true, st), nil
}
