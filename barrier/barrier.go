package barrier

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/zkapi"
)

// Barrier is a single barrier: while its node exists, Wait blocks.
type Barrier struct {
	conn zkapi.Conn
	path string
}

// New returns a handle on the barrier whose node is path. Missing
// ancestors are created as containers, so removing the barrier leaves
// nothing behind.
func New(conn zkapi.Conn, path string) (*Barrier, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	return &Barrier{conn: conn, path: path}, nil
}

// Set raises the barrier: it creates the node (a persistent node, so it
// outlives the session that set it). Setting a raised barrier is fine.
// It retries through connection loss: the create has a fixed path, so a
// create applied but unanswered comes back as "node exists".
func (b *Barrier) Set(ctx context.Context) error {
	for {
		_, err := b.conn.Create(ctx, b.path, nil, zkapi.Persistent)
		switch {
		case err == nil, errors.Is(err, zkapi.ErrNodeExists):
			return nil
		case errors.Is(err, zkapi.ErrNoNode):
			err = b.ensureParents(ctx)
		case errors.Is(err, zkapi.ErrConnectionLoss):
			err = queue.AwaitLink(ctx, b.conn)
		}
		if err != nil {
			return fmt.Errorf("barrier %s: set: %w", b.path, err)
		}
	}
}

// ensureParents creates the missing ancestors of the barrier node as
// containers: the server removes them once the barrier is gone.
func (b *Barrier) ensureParents(ctx context.Context) error {
	segs := strings.Split(strings.TrimPrefix(b.path, "/"), "/")
	for i := 1; i < len(segs); i++ {
		p := "/" + strings.Join(segs[:i], "/")
		_, err := b.conn.Create(ctx, p, nil, zkapi.Container)
		if err != nil && !errors.Is(err, zkapi.ErrNodeExists) && !errors.Is(err, zkapi.ErrConnectionLoss) {
			return fmt.Errorf("create %s: %w", p, err)
		}
	}
	return nil
}

// Remove lowers the barrier, waking every waiter once. Removing a
// lowered barrier is fine; it retries through connection loss.
func (b *Barrier) Remove(ctx context.Context) error {
	for {
		err := b.conn.Delete(ctx, b.path, zkapi.AnyVersion)
		switch {
		case err == nil, errors.Is(err, zkapi.ErrNoNode):
			return nil
		case errors.Is(err, zkapi.ErrConnectionLoss):
			err = queue.AwaitLink(ctx, b.conn)
		}
		if err != nil {
			return fmt.Errorf("barrier %s: remove: %w", b.path, err)
		}
	}
}

// Wait blocks until the barrier is lowered (its node absent) or ctx
// ends. Each waiter holds one exists watch on the node, so Remove wakes
// every waiter exactly once, and nothing else wakes them but a change of
// the node's data. A waiter needs no session of its own across the wait:
// after connection loss or a new session it simply looks again.
func (b *Barrier) Wait(ctx context.Context) error {
	for {
		_, ok, w, err := b.conn.ExistsW(ctx, b.path)
		switch {
		case err == nil && !ok:
			return nil
		case err == nil:
			_, err = w.Wait(ctx)
		case errors.Is(err, zkapi.ErrConnectionLoss):
			err = queue.AwaitLink(ctx, b.conn)
		}
		if err != nil {
			return fmt.Errorf("barrier %s: wait: %w", b.path, err)
		}
	}
}
