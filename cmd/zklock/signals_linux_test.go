package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zksim/zksim/zkapi/gozk"
)

// fatalByDefault are the Linux signals whose default action ends a
// process (signal(7): Term or Core), less KILL, which cannot be caught,
// and 32 to 34, which Go's runtime leaves to the C library (os/signal
// cannot catch them; docs/zklock.md's signal table says what they do). The
// list is the test's own, from signal(7), not zklock's caught.
func fatalByDefault() []syscall.Signal {
	notFatal := map[int]bool{
		9: true, 17: true, 18: true, 19: true, 20: true, 21: true, 22: true, 23: true, 28: true, // KILL; CHLD, CONT, STOP, TSTP, TTIN, TTOU, URG, WINCH
		27: true,                     // PROF: Go's runtime keeps it for profiling and does not die of it
		32: true, 33: true, 34: true, // the C library's
	}
	var sigs []syscall.Signal
	for n := 1; n <= 64; n++ {
		if !notFatal[n] {
			sigs = append(sigs, syscall.Signal(n))
		}
	}
	return sigs
}

// Every catchable signal that would end zklock by default is passed on to
// the command, and the lock stays held until the command has exited:
// otherwise the command would run on without it. One zklock gets them all
// in turn; the command's trap for each prints its number (dash takes
// numbers for the names it lacks, such as STKFLT and the real-time ones).
func TestZklock_SignalsForwardedLockKept(t *testing.T) {
	bin := buildZklock(t)
	sigs := fatalByDefault()
	var traps strings.Builder
	for _, sig := range sigs {
		fmt.Fprintf(&traps, "trap 'echo got %d' %d; ", int(sig), int(sig))
	}
	onBackends(t, func(t *testing.T, b backend) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		running := filepath.Join(t.TempDir(), "running")
		if err := os.WriteFile(running, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		// The loop also ends when t's temporary directory goes, so that a
		// command left behind by a zklock that died ends with the test.
		script := traps.String() + `echo "$ZKLOCK_NODE"; while [ -e ` + running + ` ]; do sleep 0.01; done; exit 5`
		p := startBinary(t, bin, "-servers", b.addr, b.path(t, "sig"), "--", "sh", "-c", script)
		node := p.line(t, ctx)
		watch, err := gozk.DialContext(ctx, []string{b.addr}, gozk.Config{SessionTimeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer watch.Close()
		for _, sig := range sigs {
			p.cmd.Process.Signal(sig)
			select {
			case got := <-p.lines:
				if want := fmt.Sprintf("got %d", int(sig)); got != want {
					t.Fatalf("%s: the command printed %q, want %q", signalName(sig), got, want)
				}
			case code := <-p.done:
				t.Fatalf("%s ended zklock (exit %d) and not the command: %.300q", signalName(sig), code, p.errText())
			case <-time.After(5 * time.Second): // a bound on a failing test, not a speed goal
				t.Fatalf("%s did not reach the command within 5s (zklock kept it): %q", signalName(sig), p.errText())
			}
			if _, ok, err := watch.Exists(ctx, node); err != nil || !ok {
				t.Fatalf("%s: the lock node is gone (%v) while the command still runs: %q", signalName(sig), err, p.errText())
			}
		}
		if err := os.Remove(running); err != nil {
			t.Fatal(err)
		}
		if code := p.exit(t, ctx); code != 5 {
			t.Fatalf("exit %d, want the command's 5: %q", code, p.errText())
		}
	})
}
