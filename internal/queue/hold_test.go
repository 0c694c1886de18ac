package queue_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/zkapi"
)

// history is a Conn whose session has already gone through snaps, as
// go-zookeeper's adapter remembers them: Session gives the latest,
// WaitSession the first after seq. Nothing else is called.
type history struct {
	zkapi.Conn
	snaps []zkapi.Session // Seq i+1 at index i
}

func (h *history) Session() zkapi.Session { return h.snaps[len(h.snaps)-1] }

func (h *history) WaitSession(ctx context.Context, seq uint64) (zkapi.Session, error) {
	if int(seq) < len(h.snaps) {
		return h.snaps[seq], nil
	}
	<-ctx.Done()
	return h.Session(), ctx.Err()
}

// A disconnection the client recovered from between Wait's first look and
// its first WaitSession is still a suspension under LoseOnDisconnect: Wait
// steps through the snapshots after the one it started from instead of
// jumping to the latest.
func TestHold_WaitSeesARecoveredDisconnect(t *testing.T) {
	conn := &firstLook{history: &history{snaps: []zkapi.Session{
		{ID: 7, State: zkapi.StateConnected, Seq: 1},
		{ID: 7, State: zkapi.StateDisconnected, Seq: 2},
		{ID: 7, State: zkapi.StateConnected, Seq: 3},
	}}}
	h := &queue.Hold{Q: queue.Queue{Conn: conn, Dir: "/l"}, Path: "/l/n-0000000000", SID: 7, LoseOnDisconnect: true}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.Wait(ctx); !errors.Is(err, queue.ErrSuspended) {
		t.Fatalf("Wait = %v, want ErrSuspended", err)
	}
}

// firstLook answers the first Session call with the oldest snapshot: the
// state when Wait began, before the blip it must not miss.
type firstLook struct {
	*history
	looked bool
}

func (f *firstLook) Session() zkapi.Session {
	if !f.looked {
		f.looked = true
		return f.snaps[0]
	}
	return f.history.Session()
}

// Without LoseOnDisconnect the same blip does not end the hold: only a
// lost session or a release does.
func TestHold_WaitOutlastsABlipWithoutLoseOnDisconnect(t *testing.T) {
	conn := &firstLook{history: &history{snaps: []zkapi.Session{
		{ID: 7, State: zkapi.StateConnected, Seq: 1},
		{ID: 7, State: zkapi.StateDisconnected, Seq: 2},
		{ID: 7, State: zkapi.StateConnected, Seq: 3},
		{ID: 7, State: zkapi.StateExpired, Seq: 4},
	}}}
	h := &queue.Hold{Q: queue.Queue{Conn: conn, Dir: "/l"}, Path: "/l/n-0000000000", SID: 7}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.Wait(ctx); !errors.Is(err, queue.ErrSessionLost) {
		t.Fatalf("Wait = %v, want ErrSessionLost", err)
	}
}

// multiLog is a connected Conn that keeps the ops of every Multi, as a
// transport or a recorder may, and answers each op with success.
type multiLog struct {
	zkapi.Conn
	multis [][]zkapi.Op
}

func (m *multiLog) Session() zkapi.Session {
	return zkapi.Session{ID: 7, State: zkapi.StateConnected, Seq: 1}
}

func (m *multiLog) Multi(_ context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error) {
	m.multis = append(m.multis, ops)
	return make([]zkapi.OpResult, len(ops)), nil
}

// Each fenced write is its own multi, the check first: a multi kept
// after its write still holds that write's ops once the holder has
// written again.
func TestHold_FencedWritesKeepTheirOps(t *testing.T) {
	conn := &multiLog{}
	h := &queue.Hold{Q: queue.Queue{Conn: conn, Dir: "/l"}, Path: "/l/n-0000000000", SID: 7}
	ctx := context.Background()
	for _, data := range []string{"1", "2", "3"} {
		if _, err := h.Fenced(ctx, zkapi.SetOp{Path: "/r", Data: []byte(data), Version: -1}); err != nil {
			t.Fatal(err)
		}
	}
	if len(conn.multis) != 3 {
		t.Fatalf("%d multis, want 3", len(conn.multis))
	}
	for i, ops := range conn.multis {
		check, ok := ops[0].(zkapi.CheckOp)
		set, ok2 := ops[1].(zkapi.SetOp)
		if len(ops) != 2 || !ok || check.Path != h.Path || !ok2 || string(set.Data) != string(rune('1'+i)) {
			t.Errorf("multi %d: %v, want the check of %s and write %d", i, ops, h.Path, i+1)
		}
	}
}

// fenceConn is a multiLog whose session is sess, and whose deletes
// succeed.
type fenceConn struct {
	multiLog
	sess zkapi.Session
}

func (f *fenceConn) Session() zkapi.Session { return f.sess }

func (f *fenceConn) Delete(context.Context, string, int32) error { return nil }

// A fenced write is refused, without a request, once the hold is
// released or its session known lost; a suspended hold (disconnected,
// LoseOnDisconnect) still writes: the fence decides.
func TestHold_FencedOnlyWhileHeld(t *testing.T) {
	ctx := context.Background()
	set := zkapi.SetOp{Path: "/r", Data: []byte("1"), Version: -1}
	for _, c := range []struct {
		name    string
		sess    zkapi.Session
		release bool
		want    error
	}{
		{"held", zkapi.Session{ID: 7, State: zkapi.StateConnected}, false, nil},
		{"suspended", zkapi.Session{ID: 7, State: zkapi.StateDisconnected}, false, nil},
		{"expired", zkapi.Session{ID: 7, State: zkapi.StateExpired}, false, queue.ErrSessionLost},
		{"replaced", zkapi.Session{ID: 8, State: zkapi.StateConnected}, false, queue.ErrSessionLost},
		{"released", zkapi.Session{ID: 7, State: zkapi.StateConnected}, true, queue.ErrReleased},
	} {
		conn := &fenceConn{sess: c.sess}
		h := &queue.Hold{Q: queue.Queue{Conn: conn, Dir: "/l"}, Path: "/l/n-0000000000", SID: 7, LoseOnDisconnect: true}
		if c.release {
			if err := h.Release(ctx); err != nil {
				t.Fatalf("%s: Release: %v", c.name, err)
			}
		}
		_, err := h.Fenced(ctx, set)
		if (c.want == nil) != (err == nil) || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("%s: Fenced = %v, want %v", c.name, err, c.want)
		}
		if wrote := len(conn.multis) == 1; wrote != (c.want == nil) {
			t.Errorf("%s: %d multis sent", c.name, len(conn.multis))
		}
	}
}
