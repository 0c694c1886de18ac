package zoo_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// abandoningConn is a client that gives up its session on its own: its
// first create in dir is applied, and before the reply arrives the client
// drops the connection, abandons the session without telling the server
// (a client-side session timeout, or a handle closed after a long
// disconnection without its closeSession arriving) and goes on with a new
// one. The create fails with connection loss. The server keeps the old
// session, and the node, until the session expires.
//
// Only the recipe's goroutine calls it; the test reads the sessions
// through the atomics.
type abandoningConn struct {
	zkapi.Conn // the current session's Conn
	srv        *fakezk.Server
	dir        string
	seqBase    uint64 // added to the current Conn's session Seq
	old, fresh atomic.Int64
}

func (c *abandoningConn) Create(ctx context.Context, path string, data []byte, mode zkapi.CreateMode) (string, error) {
	if c.old.Load() != 0 || !strings.HasPrefix(path, c.dir+"/") {
		return c.Conn.Create(ctx, path, data, mode)
	}
	if _, err := c.Conn.Create(ctx, path, data, mode); err != nil {
		return "", err
	}
	old := c.Conn.Session()
	if err := c.srv.Disconnect(old.ID); err != nil {
		return "", err
	}
	c.Conn.Close() // partitioned: the session lingers
	fresh, err := c.srv.Connect(fakezk.ConnOptions{})
	if err != nil {
		return "", err
	}
	c.seqBase = old.Seq + 1 // one change for the expiry the client reports to itself
	c.Conn = fresh
	c.old.Store(old.ID)
	c.fresh.Store(fresh.Session().ID)
	return "", proto.Wrap("create", path, zkapi.ErrConnectionLoss)
}

// Session numbers the new session's changes after the old one's.
func (c *abandoningConn) Session() zkapi.Session {
	s := c.Conn.Session()
	s.Seq += c.seqBase
	return s
}

func (c *abandoningConn) WaitSession(ctx context.Context, seq uint64) (zkapi.Session, error) {
	if seq < c.seqBase {
		return c.Session(), nil
	}
	s, err := c.Conn.WaitSession(ctx, seq-c.seqBase)
	s.Seq += c.seqBase
	return s, err
}

// abandonedSessionNodeAdopted (bug scenario 2, CURATOR-498): b's create
// is applied, and b gives up its session before the reply comes, going
// on with a new one. b must not take the old session's node for its own:
// once b holds, the old session expires (and takes that node along), and
// then c comes. c must wait for b. A recipe that finds its node by name
// alone holds on a node that is gone.
func abandonedSessionNodeAdopted() scenario {
	return scenario{name: "abandoned-session-node-adopted", class: check.MutualExclusion,
		run: func(t *testing.T, e *env, r recipe.Lock) (bool, string) {
			b := e.prepare("b")
			ac := &abandoningConn{Conn: b.conn, srv: e.srv, dir: e.dir}
			b.conn = ac
			e.run(b, r.Acquire)
			// b holds at once on the node it adopted, or waits for the old
			// session's node ahead of its own.
			e.until(b, func(m *machine.Machine) bool {
				fresh := ac.fresh.Load()
				return fresh != 0 && e.watchedBy(m, fresh) != ""
			})
			old := ac.old.Load()
			if old == 0 {
				t.Fatal("b did not create in the lock directory")
			}
			for range 100 {
				if !inspect(e, func(m *machine.Machine) bool { return m.Alive(old) }) {
					break
				}
				e.srv.Tick(1)
			}
			e.mustHold(b)
			broke, detail := e.holdsBoth(b, e.start(r.Acquire, "c"))
			return broke, fmt.Sprintf("%s (b's old session %#x expired while b held)", detail, old)
		}}
}
