package lock_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/recipe"
)

func (w *world) multi(dirs []string, id string) *lock.MultiMutex {
	w.t.Helper()
	mm, err := lock.NewMulti(w.conn(), dirs, lock.Options{ID: id})
	if err != nil {
		w.t.Fatal(err)
	}
	return mm
}

// Two MultiMutexes over the same locks given in opposite orders cannot
// deadlock: both acquire in path order.
func TestMultiMutex_CanonicalOrder(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	a := w.multi([]string{"/m/x", "/m/y"}, "a")
	b := w.multi([]string{"/m/y", "/m/x"}, "b")
	la, err := a.Acquire(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	pb := zktest.Go(t, w.ctx, b.Acquire)
	// b queues on /m/x first, never holding /m/y while waiting.
	err = w.srv.WaitUntil(w.ctx, func(m fakezk.State) bool { return len(m.Children("/m/x")) == 2 })
	if err != nil {
		t.Fatalf("b never queued on /m/x: %v (/m/y: %v)", err, w.children("/m/y"))
	}
	if kids := w.children("/m/y"); len(kids) != 1 {
		t.Fatalf("b took /m/y out of order: %v", kids)
	}
	if err := la.Check(); err != nil {
		t.Fatal(err)
	}
	w.release(la)
	lb := pb.Receive(t, w.ctx, "Acquire")
	if got := len(lb.Leases()); got != 2 {
		t.Fatalf("b holds %d locks", got)
	}
	w.release(lb)
}

// One deadline for the whole set; on failure the locks already taken are
// released.
func TestMultiMutex_AllOrNothing(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	blocker, err := lock.New(w.conn(), "/m/y", lock.Options{ID: "z"})
	if err != nil {
		t.Fatal(err)
	}
	lz := w.acquire(blocker)
	mm := w.multi([]string{"/m/x", "/m/y"}, "a")
	cctx, cancel := context.WithCancel(w.ctx)
	defer cancel()
	pm := zktest.Go(t, cctx, mm.Acquire)
	w.waitWatched(lz.Node())
	if kids := w.children("/m/x"); len(kids) != 1 {
		t.Fatalf("/m/x not held while the set waits for /m/y: %v", kids)
	}
	cancel()
	if _, err := pm.Wait(t, w.ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if kids := w.children("/m/x"); len(kids) != 0 {
		t.Fatalf("/m/x still held after the set failed: %v", kids)
	}
	w.release(lz)
}

// A session lost while the set is being taken loses the locks already
// taken: the set must fail loudly and leave nothing behind, not return a
// lease of which a part is gone (the later locks being taken again on the
// new session).
func TestMultiMutex_SessionLostMidwayFails(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	c := w.conn()
	mm, err := lock.NewMulti(c, []string{"/m/x", "/m/y"}, lock.Options{ID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	w.Once(func(m *machine.Machine, sid int64, req proto.Request) (fakezk.Fault, bool) {
		if cr, ok := req.(proto.Create); !ok || !strings.HasPrefix(cr.Path, "/m/y/") {
			return 0, false
		}
		// The create of the second lock's node is applied, then the
		// session expires, and the reply is lost.
		m.Do(sid, req)
		m.Expire(sid)
		return fakezk.LoseRequest, true
	})
	ml, err := mm.Acquire(w.ctx)
	if !errors.Is(err, recipe.ErrLost) {
		var held []string
		if ml != nil {
			held = []string{fmt.Sprint(ml.Check())}
		}
		t.Fatalf("Acquire: %v, want ErrLost (lease check: %v)", err, held)
	}
	for _, dir := range []string{"/m/x", "/m/y"} {
		if kids := w.children(dir); len(kids) != 0 {
			t.Errorf("%s still has %v", dir, kids)
		}
	}
}
