// Package ztree works on whole subtrees of a ZooKeeper tree through the
// zkapi interface: the clean-up of a run's or a test's own nodes.
package ztree

import (
	"context"
	"errors"

	"github.com/zksim/zksim/zkapi"
)

// DeleteTree deletes the node at p and everything below it, starting over
// after a connection loss until ctx ends. A node already gone is fine.
func DeleteTree(ctx context.Context, c zkapi.Conn, p string) error {
	for {
		err := deleteTreeOnce(ctx, c, p)
		if !errors.Is(err, zkapi.ErrConnectionLoss) || ctx.Err() != nil {
			return err
		}
	}
}

func deleteTreeOnce(ctx context.Context, c zkapi.Conn, p string) error {
	kids, _, err := c.Children(ctx, p)
	if errors.Is(err, zkapi.ErrNoNode) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, k := range kids {
		child := p + "/" + k
		if p == "/" {
			child = "/" + k
		}
		if err := deleteTreeOnce(ctx, c, child); err != nil {
			return err
		}
	}
	if err := c.Delete(ctx, p, zkapi.AnyVersion); err != nil && !errors.Is(err, zkapi.ErrNoNode) {
		return err
	}
	return nil
}
