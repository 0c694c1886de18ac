package simcli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/expire"
	"github.com/zksim/zksim/internal/ztree"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// realWork is a workload on real servers, the lock's (realRun) or a
// barrier's (realBarrier); runWork runs either the same way.
type realWork interface {
	// header says at once what the run does.
	header(w io.Writer)
	// prepare creates what the workload needs under the run's root,
	// before any client starts.
	prepare(ctx context.Context, admin zkapi.Conn, root string) error
	// client runs client i's program on its session c.
	client(ctx context.Context, i int, c zkapi.Conn)
	// judge is the run's verdict once the clients are done; stopped is
	// what cut them short, if anything (the time limit, Ctrl-C).
	judge(ctx context.Context, admin zkapi.Conn, stopped error) []check.Violation
	// report is the text report's body.
	report(w io.Writer, elapsed time.Duration, vs []check.Violation, stopped error)
}

// runWork runs w until its clients are done, ctx ends or the time limit
// (default 2 minutes) is up, and reports; it returns the exit code. It
// dials an admin session, gives the run a root of its own (removed at
// the end), starts the nemesis drawn from the seed with one proxy per
// client, dials each client's session through its proxy, and stops a
// client the nemesis crashes by closing its session's Conn.
func (r *realRun) runWork(ctx context.Context, stdout, stderr io.Writer, w realWork) int {
	name := r.rc.cli.name()
	jsonw := stdout
	if r.rc.asJSON {
		stdout = stderr // the text report; JSON lines go to jsonw
	}
	if err := r.rc.real.CheckMembers(r.members != nil); err != nil {
		fmt.Fprintf(stderr, "%s run: -faults: %v\n", name, err)
		return ExitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(r.rc.budget, 2*time.Minute))
	defer cancel()
	w.header(stdout)
	r.capture, r.history, r.errs = &expire.Capture{}, newRealHistory(), map[string]int{}
	dial := func(dialer zk.Dialer) (zkapi.Conn, error) {
		return gozk.DialContext(ctx, r.rc.servers, gozk.Config{SessionTimeout: realSessionTimeout, ConnectTimeout: 3 * time.Second, Dialer: dialer})
	}
	admin, err := dial(r.capture.Dial)
	if err != nil {
		fmt.Fprintf(stderr, "%s run: cannot reach %s: %v\n", name, strings.Join(r.rc.servers, ","), err)
		return ExitCouldNotRun
	}
	defer admin.Close()
	root := fmt.Sprintf("/zksim-run-%d", time.Now().UnixNano())
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ztree.DeleteTree(cctx, admin, root)
	}()
	if err := w.prepare(ctx, admin, root); err != nil {
		fmt.Fprintf(stderr, "%s run: %v\n", name, err)
		return ExitCouldNotRun
	}

	start := time.Now()
	n := r.rc.workload.Clients
	cctx, stops := make([]context.Context, n), make([]context.CancelCauseFunc, n)
	for i := range n {
		cctx[i], stops[i] = context.WithCancelCause(ctx)
		defer stops[i](nil)
	}
	if r.nem, err = r.startNemesis(stops); err != nil {
		fmt.Fprintf(stderr, "%s run: %v\n", name, err)
		return ExitCouldNotRun
	}
	defer r.nem.Close()
	conns := make([]zkapi.Conn, n)
	for i := range conns {
		if conns[i], err = dial(r.nem.Dialer(i, r.capture.Dial)); err != nil {
			fmt.Fprintf(stderr, "%s run: %v\n", name, err)
			return ExitCouldNotRun
		}
		defer conns[i].Close()
	}
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() {
			defer context.AfterFunc(cctx[i], func() { crashClose(cctx[i], c) })()
			w.client(cctx[i], i, c)
		})
	}
	wg.Wait()
	// What cut the clients short, if anything: the limit may pass later,
	// while a member restarts, when the clients were done.
	stopped := context.Cause(ctx)
	r.nem.Stop()
	r.nem.EndCrashed(context.WithoutCancel(ctx))
	vs := w.judge(context.WithoutCancel(ctx), admin, stopped)
	elapsed := time.Since(start)
	w.report(stdout, elapsed, vs, stopped)
	if err := r.writeReports(jsonw, stdout, elapsed, vs, stopped); err != nil {
		fmt.Fprintf(stderr, "%s run: %v\n", name, err)
		if len(vs) == 0 {
			return ExitCouldNotRun // a violation still exits 1
		}
	}
	switch {
	case len(vs) > 0:
		return ExitViolation
	case errors.Is(stopped, errInterrupted):
		return ExitInterrupted
	}
	return ExitOK
}
