package simcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/expire"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/nemesis"
	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// realRun is the workload on real servers: real sessions and real time, so
// no schedule control and no shrinking. Faults come from a nemesis drawn
// from the seed (package nemesis): each client runs through its own
// proxy, which loses requests or replies, cuts or stalls it; expiry
// closes a holder's session by its captured credentials; a started
// ensemble's members are paused or killed. The checkers are those of a
// simulated run; herd, without the simulator's view of which change
// woke whom, is porcupine's search over the recorded history
// (realHistory).
type realRun struct {
	rc  runConfig
	dir string // the lock directory, under the run's root
	// resource is the node the holders write their tokens to.
	resource string
	capture  *expire.Capture
	nem      *nemesis.Nemesis
	members  nemesis.Members // -ensemble's servers, for member faults; nil with -servers
	history  *realHistory
	// schedule is the nemesis's fault schedule, drawn from the seed, and
	// nemesisAt when the nemesis began on the history's clock: the
	// reports place its injections on the history's time axis.
	schedule  []nemesis.Fault
	nemesisAt int64

	clock    atomic.Int64
	holdSeq  atomic.Int64 // holds begun, for choosing which to expire
	expired  atomic.Int64 // sessions expired while holding
	mu       sync.Mutex
	holds    []linearize.Hold
	accepted []checkers.Accepted
	errs     map[string]int
}

// run runs the lock workload (runWork) and returns the exit code.
func (r *realRun) run(ctx context.Context, stdout, stderr io.Writer) int {
	return r.runWork(ctx, stdout, stderr, r)
}

// prepare creates the run's root and the protected resource, and has
// the recipe record its acquisitions in the history.
func (r *realRun) prepare(ctx context.Context, admin zkapi.Conn, root string) error {
	r.dir, r.resource = root+"/lock", root+"/resource"
	for _, p := range []string{root, r.resource} {
		if _, err := admin.Create(ctx, p, []byte("0"), zkapi.Persistent); err != nil {
			return fmt.Errorf("create %s: %w", p, err)
		}
	}
	r.rc.recipe = r.history.recipe(r.rc.recipe)
	return nil
}

// judge lists what is left in the lock directory and judges the run.
func (r *realRun) judge(ctx context.Context, admin zkapi.Conn, _ error) []check.Violation {
	return r.violations(r.dir, r.leftover(ctx, admin, r.dir))
}

// leftNodes lists the ephemeral nodes under dir, by their paths below
// it, descending into persistent children: those are a recipe's own
// directories (a semaphore's queue and leases), not nodes a client
// left behind, and the nodes it leaves are in them.
func leftNodes(ctx context.Context, admin zkapi.Conn, dir, rel string) []string {
	kids, _, _ := admin.Children(ctx, path.Join(dir, rel))
	sort.Strings(kids)
	var left []string
	for _, k := range kids {
		name := path.Join(rel, k)
		st, ok, err := admin.Exists(ctx, path.Join(dir, name))
		switch {
		case err != nil || !ok:
		case st.EphemeralOwner != 0:
			left = append(left, name)
		case st.NumChildren > 0:
			left = append(left, leftNodes(ctx, admin, dir, name)...)
		}
	}
	return left
}

// acquireTimeout bounds one acquisition on real servers: a waiter gives
// up after it and goes on to its next acquisition.
const acquireTimeout = 20 * time.Second

// client runs the acquisitions of one real session.
func (r *realRun) client(ctx context.Context, i int, c zkapi.Conn) {
	w, rec, dir, resource := r.rc.workload, r.rc.recipe, r.dir, r.resource
	rnd := rand.New(rand.NewPCG(r.rc.plan.seed, uint64(i)))
	for j := range w.Acquisitions {
		if ctx.Err() != nil {
			return // crashed, or the run is over
		}
		acquire, mode := rec.Acquire, linearize.Exclusive
		if rec.AcquireRead != nil {
			mode = linearize.Write
			if rnd.IntN(100) < w.ReadPercent {
				acquire, mode = rec.AcquireRead, linearize.Read
			}
		}
		call := r.clock.Add(1)
		actx, cancel := context.WithTimeout(ctx, acquireTimeout)
		held, err := acquire(actx, c, dir, fmt.Sprintf("c%d_%d", i+1, j))
		cancel()
		if err != nil {
			r.count("acquire: " + errWord(err))
			continue
		}
		h := linearize.Hold{Client: i, Lock: dir, Mode: mode, Call: call, Start: r.clock.Add(1)}
		r.maybeExpire(ctx, i)
		if mode != linearize.Read {
			h.Token, h.HasToken = r.write(ctx, i, c, held, resource)
		} else {
			r.work(ctx)
		}
		h.End = r.clock.Add(1)
		if err := held.Release(ctx); errors.Is(err, recipe.ErrLost) {
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

// work is the holder's work inside its critical section: -hold, or less
// if the client is crashed or the run ends.
func (r *realRun) work(ctx context.Context) {
	t := time.NewTimer(r.rc.hold)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// write stores the holder's token in the resource, fenced when it can be,
// and returns the token, if the holder has one. As in a simulated run, the
// token is taken at acquisition, as an application would, and written
// after the work: a holder stalled in between writes with a stale one.
// The token is the term of an election's leadership (checkers.Terms).
func (r *realRun) write(ctx context.Context, i int, c zkapi.Conn, held recipe.Held, resource string) (int64, bool) {
	tok, ok := held.(interface {
		Token(context.Context) (int64, error)
	})
	if !ok {
		r.work(ctx)
		return 0, false
	}
	token, err := tok.Token(ctx)
	if err != nil {
		r.count("token: " + errWord(err))
		return 0, false
	}
	r.work(ctx)
	data := []byte(strconv.FormatInt(token, 10))
	f, ok := held.(interface {
		Fenced(context.Context, ...zkapi.Op) ([]zkapi.OpResult, error)
	})
	var zxid int64
	call := r.clock.Add(1)
	if ok && !r.rc.workload.Unfenced {
		res, err := f.Fenced(ctx, zkapi.SetOp{Path: resource, Data: data, Version: -1})
		if err != nil || len(res) == 0 {
			r.count("fenced write refused")
			return token, true
		}
		zxid = res[0].Stat.Mzxid
	} else {
		st, err := c.Set(ctx, resource, data, -1)
		if err != nil {
			r.count("write: " + errWord(err))
			return token, true
		}
		zxid = st.Mzxid
	}
	r.mu.Lock()
	r.accepted = append(r.accepted, checkers.Accepted{Client: i, Token: token, Call: call, Step: r.clock.Add(1), Zxid: zxid})
	r.mu.Unlock()
	return token, true
}

// maybeExpire expires the session of a client that has just begun to
// hold the lock, for -faults expire=N: one hold in every clients x
// acquisitions / N, from the first, until N sessions have expired.
func (r *realRun) maybeExpire(ctx context.Context, client int) {
	if !r.expireTurn() {
		return
	}
	if err := r.nem.Expire(ctx, client, " while holding"); err != nil {
		r.count("expire failed: " + err.Error())
		return
	}
	r.expired.Add(1)
}

// errWord names err for a real run's counts (lock and barrier): the
// recipes' "lost" (the session went), ZooKeeper's name for its code, or
// what ended the call's context: a deadline (the run's -time, or a lock
// acquisition's acquireTimeout) or the run's end (Ctrl-C, a crash).
func errWord(err error) string {
	switch {
	case errors.Is(err, recipe.ErrLost):
		return "lost"
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("deadline (the run's -time, or a lock acquisition's %v)", acquireTimeout)
	case errors.Is(err, context.Canceled):
		return "canceled (the run ended or the client crashed)"
	}
	return zkapi.Name(err)
}

// expireTurn reports whether the hold (or barrier visit) just begun is
// one whose session -faults expire=N closes: one in every clients x
// acquisitions / N, from the first, until N sessions have expired.
func (r *realRun) expireTurn() bool {
	want := int64(r.rc.expire)
	if want == 0 {
		return false
	}
	step := max(1, int64(r.rc.workload.Clients*r.rc.workload.Acquisitions)/want)
	return (r.holdSeq.Add(1)-1)%step == 0 && r.expired.Load() < want
}

func (r *realRun) count(what string) {
	r.mu.Lock()
	r.errs[what]++
	r.mu.Unlock()
}

func (r *realRun) violations(dir string, left []string) []check.Violation {
	recipe := r.rc.recipe
	lost := r.lostWrites(dir, left)
	vs := slices.Clone(lost.vs)
	vs = append(vs, checkers.Exclusion(r.holds, recipe.MaxHolders())...)
	if recipe.Terms {
		vs = append(vs, checkers.Terms(r.holds, r.accepted)...)
	}
	if recipe.Leases <= 1 {
		// A semaphore's concurrent holders' tokens are not ordered, and
		// a real server's expiries are not observed here, so a
		// semaphore's writes go unchecked on real servers.
		vs = append(vs, checkers.Tokens(r.accepted)...)
	}
	vs = append(vs, checkers.Orphans(dir, lost.notIn(dir, left))...)
	vs = append(vs, r.liveness(dir, left, lost)...)
	herd, notes := r.history.herd(recipe, dir)
	for _, n := range notes {
		r.count("note: " + n.Detail)
	}
	return append(vs, herd...)
}

// checks names what a real run judges: those of a simulated run, save
// that herd is porcupine's search over the recorded wake-ups, liveness is
// judged only on a long enough run, and a semaphore's writes go
// unchecked.
func (r *realRun) checks() string {
	fencing := r.rc.fencingChecks()
	if r.rc.recipe.Leases > 1 {
		fencing = "no fencing (a semaphore's expiries are not observed)"
	}
	return fmt.Sprintf("%s (exact interval check), %s, orphans, herd (porcupine over the recorded wake-ups), deadlock (after a quiet span); no schedule control",
		r.rc.exclusion(), fencing)
}

// header says at once what the run does.
func (r *realRun) header(w io.Writer) {
	wl := r.rc.workload
	faults := r.rc.real.String()
	fmt.Fprintf(w, "%s run: %s on real servers %s, %d clients x %d acquisitions, faults %s\n",
		r.rc.cli.name(), r.rc.recipe.Name, strings.Join(r.rc.servers, ","), wl.Clients, wl.Acquisitions, faults)
	fmt.Fprintf(w, "checked: %s\n\n", r.checks())
}

func (r *realRun) report(w io.Writer, elapsed time.Duration, vs []check.Violation, stopped error) {
	if stopped != nil {
		fmt.Fprintf(w, "  %-22s %v\n", "stopped early", stopped)
	}
	fmt.Fprintf(w, "  %-22s %d in %v\n", "holds", len(r.holds), elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "  %-22s %d\n", "fenced writes accepted", len(r.accepted))
	if want := r.rc.expire; want > 0 {
		got := int(r.expired.Load())
		line := fmt.Sprintf("%d of %d asked", got, want)
		if got < want {
			line += fmt.Sprintf(": the run held the lock %d times", r.holdSeq.Load())
		}
		fmt.Fprintf(w, "  %-22s %s\n", "expired while holding", line)
	}
	r.reportEnd(w, vs)
}

// reportEnd ends a real run's text report: the counts of what went
// wrong along the way, the faults injected and the violations.
func (r *realRun) reportEnd(w io.Writer, vs []check.Violation) {
	var keys []string
	for k := range r.errs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %-22s %d\n", k, r.errs[k])
	}
	r.reportFaults(w)
	fmt.Fprintf(w, "  %-22s %d\n", "violations", len(vs))
	for _, v := range vs {
		fmt.Fprintf(w, "    %v\n", v)
	}
}

// leftover lists the nodes left under dir (leftNodes) once the server
// the admin session is on has caught up with the leader (sync): a member
// paused or cut off from the quorum may still serve an old tree, with
// nodes long deleted, and those are no orphans.
func (r *realRun) leftover(ctx context.Context, admin zkapi.Conn, dir string) []string {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := admin.Sync(ctx, dir); err != nil {
		r.count("leftover listing: sync: " + errWord(err))
	}
	return leftNodes(ctx, admin, dir, "")
}
