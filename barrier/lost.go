package barrier

import (
	"context"
	"errors"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/zkapi"
)

// findOrClear is Join's step after a create whose reply was lost. It
// adopts the node carrying the attempt's guid if the current session owns
// it, as the queue's own step does (ZOOKEEPER-1262, CURATOR-498), and
// otherwise deletes any node carrying it: such a node is on a session the
// client has given up, which the server keeps until it expires. Left
// there, it would count as a second member of the same client beside the
// one created next, and a round could form, and pass Enter, with one of
// its n members missing. Only this attempt creates nodes with its guid,
// so the listing shows them all.
func findOrClear(ctx context.Context, q queue.Queue, r queue.Request) (string, int64, error) {
	for {
		p, sid, err := queue.DefaultSteps().FindLost(ctx, q, r)
		if err != nil || p != "" {
			return p, sid, err
		}
		err = clearGUID(ctx, q, r.GUID)
		if errors.Is(err, zkapi.ErrConnectionLoss) {
			if err := queue.AwaitLink(ctx, q.Conn); err != nil {
				return "", 0, err
			}
			continue // the session may have changed: look again
		}
		return "", 0, err
	}
}

// clearGUID deletes the members carrying guid.
func clearGUID(ctx context.Context, q queue.Queue, guid string) error {
	ms, err := q.List(ctx, kind)
	if errors.Is(err, zkapi.ErrNoNode) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.GUID() != guid {
			continue
		}
		if err := q.Conn.Delete(ctx, q.Path(m.Name), zkapi.AnyVersion); err != nil && !errors.Is(err, zkapi.ErrNoNode) {
			return err
		}
	}
	return nil
}
