package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
	"github.com/zksim/zksim/zktest"
)

// realRun is the workload on real servers: real sessions and real time, so
// no schedule control and no shrinking; the only fault that can be forced
// is session expiry (closeSession on a holder's captured credentials). The
// checkers are those of a simulated run, except herd, which needs the
// simulator's view of which change woke whom.
type realRun struct {
	rc runConfig

	clock    atomic.Int64
	mu       sync.Mutex
	holds    []linearize.Hold
	accepted []linearize.Accepted
	errs     map[string]int
	holding  sync.Map // client index -> session id, while it holds
}

// parseRealFaults accepts "none" or "expire=N": what a real server allows.
func parseRealFaults(spec string) (int, error) {
	switch spec {
	case "none", "default", "":
		return 0, nil
	}
	name, val, ok := strings.Cut(spec, "=")
	n, err := strconv.Atoi(val)
	if !ok || name != "expire" || err != nil || n < 0 {
		return 0, fmt.Errorf("on real servers -faults takes none or expire=N (sessions expired while holding), not %q", spec)
	}
	return n, nil
}

func (r *realRun) run(stdout, stderr io.Writer) int {
	budget := r.rc.budget
	if budget == 0 {
		budget = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	capture := &zktest.SessionCapture{}
	dial := func() (zkapi.Conn, error) {
		return gozk.DialContext(ctx, r.rc.servers, gozk.Config{SessionTimeout: 4 * time.Second, ConnectTimeout: 3 * time.Second, Dialer: capture.Dial})
	}
	admin, err := dial()
	if err != nil {
		fmt.Fprintf(stderr, "zksim run: cannot reach %s: %v\n", strings.Join(r.rc.servers, ","), err)
		return 2
	}
	defer admin.Close()
	root := fmt.Sprintf("/zksim-run-%d", time.Now().UnixNano())
	dir, resource := root+"/lock", root+"/resource"
	for _, p := range []string{root, resource} {
		if _, err := admin.Create(ctx, p, []byte("0"), zkapi.Persistent); err != nil {
			fmt.Fprintf(stderr, "zksim run: create %s: %v\n", p, err)
			return 1
		}
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		zktest.DeleteTree(cctx, admin, root)
	}()

	start := time.Now()
	var wg sync.WaitGroup
	conns := make([]zkapi.Conn, r.rc.workload.Clients)
	for i := range conns {
		if conns[i], err = dial(); err != nil {
			fmt.Fprintf(stderr, "zksim run: %v\n", err)
			return 1
		}
		defer conns[i].Close()
	}
	r.errs = map[string]int{}
	for i, c := range conns {
		wg.Add(1)
		go func() { defer wg.Done(); r.client(ctx, i, c, dir, resource) }()
	}
	expired := r.expireHolders(ctx, capture, &wg)
	wg.Wait()
	left, _, _ := admin.Children(ctx, dir)
	vs := r.violations(dir, left)
	r.report(stdout, time.Since(start), expired, vs)
	if len(vs) > 0 {
		return 1
	}
	return 0
}

// client runs the acquisitions of one real session.
func (r *realRun) client(ctx context.Context, i int, c zkapi.Conn, dir, resource string) {
	w := r.rc.workload
	rnd := rand.New(rand.NewPCG(r.rc.seed, uint64(i)))
	for j := range w.Acquisitions {
		acquire, mode := w.Recipe.Acquire, linearize.Exclusive
		if w.Recipe.AcquireRead != nil {
			mode = linearize.Write
			if rnd.IntN(100) < w.ReadPercent {
				acquire, mode = w.Recipe.AcquireRead, linearize.Read
			}
		}
		call := r.clock.Add(1)
		actx, cancel := context.WithTimeout(ctx, 20*time.Second)
		held, err := acquire(actx, c, dir, fmt.Sprintf("c%d_%d", i+1, j))
		cancel()
		if err != nil {
			r.count("acquire: " + zkapi.Name(err))
			continue
		}
		h := linearize.Hold{Client: i, Lock: dir, Mode: mode, Call: call, Start: r.clock.Add(1)}
		r.holding.Store(i, c.Session().ID)
		if mode != linearize.Read {
			r.write(ctx, i, held, resource)
		} else {
			time.Sleep(time.Millisecond) // the critical section's work
		}
		h.End = r.clock.Add(1)
		r.holding.Delete(i)
		if err := held.Release(ctx); errors.Is(err, lock.ErrLost) {
			// The session went while holding: from when, a client cannot
			// know. Its section counts as empty; fencing judges its write.
			h.End = h.Start
			r.count("lost while holding")
		}
		r.mu.Lock()
		r.holds = append(r.holds, h)
		r.mu.Unlock()
	}
}

// write stores the holder's token in the resource, fenced when it can be.
func (r *realRun) write(ctx context.Context, i int, held lock.Held, resource string) {
	tok, ok := held.(lock.Tokener)
	if !ok {
		return
	}
	token, err := tok.Token(ctx)
	if err != nil {
		r.count("token: " + zkapi.Name(err))
		return
	}
	time.Sleep(time.Millisecond) // the critical section's work
	f, ok := held.(lock.Fencer)
	if !ok {
		return
	}
	res, err := f.Fenced(ctx, zkapi.SetOp{Path: resource, Data: []byte(strconv.FormatInt(token, 10)), Version: -1})
	if err != nil || len(res) == 0 {
		r.count("fenced write refused")
		return
	}
	r.mu.Lock()
	r.accepted = append(r.accepted, linearize.Accepted{Client: i, Token: token, Step: r.clock.Load(), Zxid: res[0].Stat.Mzxid})
	r.mu.Unlock()
}

// expireHolders expires up to r.rc.expire sessions of clients that hold the
// lock, while the clients run.
func (r *realRun) expireHolders(ctx context.Context, capture *zktest.SessionCapture, clients *sync.WaitGroup) int {
	done := make(chan struct{})
	go func() { clients.Wait(); close(done) }()
	rnd := rand.New(rand.NewPCG(r.rc.seed, 99))
	n := 0
	for n < r.rc.expire {
		select {
		case <-done:
			return n
		case <-time.After(time.Duration(20+rnd.IntN(80)) * time.Millisecond):
		}
		var victim int64
		r.holding.Range(func(_, v any) bool { victim = v.(int64); return false })
		if victim != 0 && capture.Kill(ctx, victim) == nil {
			n++
		}
	}
	<-done
	return n
}

func (r *realRun) count(what string) {
	r.mu.Lock()
	r.errs[what]++
	r.mu.Unlock()
}

func (r *realRun) violations(dir string, left []string) []linearize.Violation {
	vs := linearize.CheckLocks(r.holds).Violations
	vs = append(vs, linearize.CheckFencing(r.accepted)...)
	return append(vs, linearize.CheckOrphans(dir, left)...)
}

func (r *realRun) report(w io.Writer, elapsed time.Duration, expired int, vs []linearize.Violation) {
	wl := r.rc.workload
	fmt.Fprintf(w, "zksim run: %s on real servers %s, %d clients x %d acquisitions, %d sessions expired while holding\n",
		wl.Recipe.Name, strings.Join(r.rc.servers, ","), wl.Clients, wl.Acquisitions, expired)
	fmt.Fprint(w, "checked: exclusion (porcupine), fencing, orphans; no schedule control, no herd check on real servers\n\n")
	fmt.Fprintf(w, "  %-22s %d in %v\n", "holds", len(r.holds), elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "  %-22s %d\n", "fenced writes accepted", len(r.accepted))
	var keys []string
	for k := range r.errs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %-22s %d\n", k, r.errs[k])
	}
	fmt.Fprintf(w, "  %-22s %d\n", "violations", len(vs))
	for _, v := range vs {
		fmt.Fprintf(w, "    %v\n", v)
	}
}
