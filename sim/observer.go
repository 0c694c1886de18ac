package sim

import "github.com/zksim/zksim/internal/proto"

// Observer is told, in step order and as they happen, the typed
// observations of the scheduler, which knows nothing of what the clients'
// programs are for: workloads and their checkers learn what they judge
// from them. An Observer must not change the run. Embed NopObserver to
// take only some.
type Observer interface {
	// Applied: the server applied a request of c's, with reply r (which
	// may yet be lost on its way back).
	Applied(c *Client, req proto.Request, r proto.Reply)
	// Expired: on a tick the server expired session, in a transaction
	// with this zxid (its closeSession), deleting its ephemerals.
	Expired(session, zxid int64)
	// Woken: a Wait of c's returned for the first time on a watch that
	// the change with this zxid fired (not a session's end, and not a
	// watch set by a request that crossed a session expiry, which
	// go-zookeeper sends on the new session).
	Woken(c *Client, path string, zxid int64)
	// Blocks: c called Wait on a watch that had not fired: it goes (back)
	// to waiting.
	Blocks(c *Client)
}

// NopObserver observes nothing; embed it in an Observer that takes only
// some observations.
type NopObserver struct{}

// Applied implements Observer.
func (NopObserver) Applied(*Client, proto.Request, proto.Reply) {}

// Expired implements Observer.
func (NopObserver) Expired(int64, int64) {}

// Woken implements Observer.
func (NopObserver) Woken(*Client, string, int64) {}

// Blocks implements Observer.
func (NopObserver) Blocks(*Client) {}
