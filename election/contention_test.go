package election_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/recipe"

	"github.com/zksim/zksim/election"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fakehook"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/zkapi"
)

// contention is the shared record of a contention run: the leaderships
// granted so far and those not yet resigned.
type contention struct {
	t *testing.T

	mu       sync.Mutex
	active   map[*election.Leadership]string
	lastTerm int64
	granted  int
	fenced   int // fenced writes that landed
	refused  int // fenced writes refused (ErrLost)
}

// grant records a new leader: its term must be above every earlier one,
// and every other leadership not yet resigned must already know it is
// over (Check fails): at most one leader at a time, and so per term.
func (c *contention) grant(who string, l *election.Leadership) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l.Term() <= c.lastTerm {
		c.t.Errorf("%s leads with term %d, not above the last granted %d", who, l.Term(), c.lastTerm)
	}
	c.lastTerm = l.Term()
	c.granted++
	for o, other := range c.active {
		if err := o.Check(); err == nil {
			c.t.Errorf("%s leads (term %d) while %s still leads (term %d)", who, l.Term(), other, o.Term())
		}
	}
	c.active[l] = who
}

func (c *contention) done(l *election.Leadership) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.active, l)
}

// At most one leader per term, terms strictly increasing in the order
// leaders are granted, and fenced writes landing only in increasing term
// order, while creates lose their replies and sessions expire both while
// following and while leading. Afterwards the directory is empty.
func TestElection_ContentionWithLostCreatesAndExpiries(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	setup := w.conn()
	if _, err := setup.Create(w.ctx, "/fence", []byte("0"), zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex // guards the counters
	var creates, watches, multis, lostCreates, expiries int
	w.Every(func(m *machine.Machine, sid int64, req proto.Request) fakezk.Fault {
		mu.Lock()
		defer mu.Unlock()
		switch r := req.(type) {
		case proto.Create:
			if strings.HasPrefix(r.Path, dir+"/cand-") {
				if creates++; creates%4 == 0 {
					lostCreates++
					return fakezk.LoseReply
				}
			}
		case proto.GetData:
			if r.Watch && strings.HasPrefix(r.Path, dir+"/") {
				if watches++; watches%9 == 0 {
					expiries++ // a follower's session expires
					m.Expire(sid)
					return fakezk.LoseRequest
				}
			}
		case proto.Multi:
			if multis++; multis%5 == 0 {
				expiries++ // a leader's session expires
				m.Expire(sid)
				return fakezk.LoseRequest
			}
		}
		return fakezk.Deliver
	})
	rec := &contention{t: t, active: map[*election.Leadership]string{}}
	const clients, total = 5, 60
	var (
		wg     sync.WaitGroup
		exited atomic.Int32
	)
	for i := range clients {
		conn := w.conn()
		e := w.election(conn, "c"+strconv.Itoa(i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close()
			defer exited.Add(1)
			for {
				rec.mu.Lock()
				enough := rec.granted >= total
				rec.mu.Unlock()
				if enough {
					return
				}
				l, err := e.Campaign(w.ctx)
				if errors.Is(err, recipe.ErrLost) || errors.Is(err, zkapi.ErrConnectionLoss) {
					continue // the session expired while following
				}
				if err != nil {
					t.Errorf("%s: Campaign: %v", e.ID(), err)
					return
				}
				rec.grant(e.ID(), l)
				// Lead until a follower waits behind (so that
				// leaderships contend), the node is gone, or no
				// other client is left to follow.
				err = fakehook.WaitUntil(w.ctx, w.srv, func(m *machine.Machine) bool {
					data, _ := m.Watchers(0, l.Node())
					_, _, ok := m.Node(l.Node())
					return len(data) > 0 || !ok || exited.Load() == clients-1
				})
				if err != nil {
					t.Errorf("%s: %v", e.ID(), err)
				}
				lead(t, w.ctx, conn, l, rec)
				lead(t, w.ctx, conn, l, rec) // after an expiry in the first: refused
				if err := l.Release(w.ctx); err != nil && !errors.Is(err, recipe.ErrLost) {
					t.Errorf("%s: Release: %v", e.ID(), err)
				}
				rec.done(l)
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	t.Logf("%d leaderships, %d fenced writes landed, %d refused; %d lost create replies, %d expiries",
		rec.granted, rec.fenced, rec.refused, lostCreates, expiries)
	if lostCreates == 0 || expiries == 0 {
		t.Errorf("faults not exercised: %d lost creates, %d expiries", lostCreates, expiries)
	}
	mu.Unlock()
	if kids := w.children(); len(kids) != 0 {
		t.Errorf("nodes left: %v", kids)
	}
}

// lead is one leader's work: a fenced write of its term over the last
// one, which must be lower.
func lead(t *testing.T, ctx context.Context, conn zkapi.Conn, l *election.Leadership, rec *contention) {
	data, st, err := conn.Get(ctx, "/fence")
	if err != nil {
		return // connection loss or a new session: nothing written
	}
	prev, _ := strconv.ParseInt(string(data), 10, 64)
	term := strconv.FormatInt(l.Term(), 10)
	_, err = l.Fenced(ctx, zkapi.SetOp{Path: "/fence", Data: []byte(term), Version: st.Version})
	rec.mu.Lock()
	defer rec.mu.Unlock()
	switch {
	case err == nil:
		rec.fenced++
		if prev > l.Term() {
			t.Errorf("fenced write of term %d landed over term %d", l.Term(), prev)
		}
	case errors.Is(err, recipe.ErrLost):
		rec.refused++
	}
}
