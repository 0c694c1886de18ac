package simcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/zksim/zksim/internal/ensemble"
)

// ensembleConfig takes -ensemble or -servers, never both: -ensemble
// starts the servers the run uses, -servers names running ones.
func (rc *runConfig) ensembleConfig(f runFlags, set map[string]bool) error {
	switch {
	case set["ensemble"] && (set["servers"] || *f.servers != ""):
		return errors.New("-ensemble and -servers: choose one (-ensemble starts servers of its own, -servers names running ones)")
	case set["ensemble"] && (*f.ensemble < 1 || *f.ensemble > ensemble.MaxN):
		return fmt.Errorf("-ensemble must be between 1 and %d, got %d", ensemble.MaxN, *f.ensemble)
	case set["ensemble"]:
		rc.ensemble = *f.ensemble
	default:
		rc.servers = strings.Split(*f.servers, ",")
	}
	return nil
}

// realFlag names the flag that made the run a real one, for messages.
func (rc *runConfig) realFlag() string {
	if rc.ensemble > 0 {
		return "ensemble"
	}
	return "servers"
}

// runReal runs the workload on real servers: those of -servers, or an
// ensemble it starts for -ensemble and stops whatever happens: the
// run's end, Ctrl-C or SIGTERM (ctx ends with errInterrupted: the
// workload stops, then the deferred Stop runs), a failed or interrupted
// start (Start stops what it started), a panic in the run (the deferred
// Stop runs as the panic unwinds). What no deferred call can cover, a
// SIGKILL of zksim or a panic in another goroutine, the kernel does on
// Linux (package ensemble's parent-death signal).
func (rc runConfig) runReal(ctx context.Context, stdout, stderr io.Writer) int {
	r := &realRun{rc: rc}
	if rc.ensemble == 0 {
		return interrupted(ctx, r.runner()(ctx, stdout, stderr))
	}
	name := rc.cli.name()
	if err := rc.real.CheckPeers(rc.ensemble); err != nil {
		fmt.Fprintf(stderr, "%s run: -faults: %v\n", name, err)
		return ExitUsage
	}
	fmt.Fprintf(stderr, "%s run: starting %d ZooKeeper server(s)\n", name, rc.ensemble)
	began := time.Now()
	e, err := ensemble.Start(ctx, ensemble.Options{N: rc.ensemble})
	if err != nil {
		if errors.Is(context.Cause(ctx), errInterrupted) {
			fmt.Fprintf(stderr, "%s run: interrupted while starting the servers; none is left running\n", name)
			return ExitInterrupted
		}
		fmt.Fprintf(stderr, "%s run: cannot start the servers (none is left running): %v\n", name, err)
		return ExitCouldNotRun
	}
	defer func() {
		if err := e.Stop(); err != nil {
			fmt.Fprintf(stderr, "%s run: servers stopped, but: %v\n", name, err)
		}
	}()
	fmt.Fprintf(stderr, "%s run: %d server(s) serving after %v, state in %s; stopped when the run ends\n",
		name, rc.ensemble, time.Since(began).Round(100*time.Millisecond), e.Dir())
	r.rc.servers, r.members = e.Addrs(), e
	return interrupted(ctx, r.runner()(ctx, stdout, stderr))
}

// interrupted is a real run's exit code: a run that could not go on
// because Ctrl-C or SIGTERM cut its connecting short was interrupted
// (ExitInterrupted), not unable to run.
func interrupted(ctx context.Context, code int) int {
	if code == ExitCouldNotRun && errors.Is(context.Cause(ctx), errInterrupted) {
		return ExitInterrupted
	}
	return code
}
