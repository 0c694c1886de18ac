package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
	"github.com/zksim/zksim/zktest"
)

func TestZklock_Usage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"/x", "--", "true"}, "-servers is required"},
		{[]string{"-servers", "h:1", "/x", "true"}, "want a lock path, then --"},
		{[]string{"-servers", "h:1", "x", "--", "true"}, "must be an absolute node path"},
		{[]string{"-servers", "h:1", "-signal", "USR9", "/x", "--", "true"}, `-signal "USR9"`},
		{[]string{"-servers", "h:1", "-timeout", "soon", "/x", "--", "true"}, "invalid value"},
		{[]string{"-bogus"}, "flag provided but not defined"},
	} {
		var errb bytes.Buffer
		if code := run(tc.args, nil, io.Discard, &errb, gozk.Config{}); code != exitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, %q", tc.args, code, errb.String())
		}
	}
}

func unique(name string) string {
	return fmt.Sprintf("/zklock-test-%s-%d", name, time.Now().UnixNano())
}

// An unreachable ensemble is exit 5 with a message naming it.
func TestZklock_Unreachable(t *testing.T) {
	var errb bytes.Buffer
	code := run([]string{"-servers", "127.0.0.1:1", "-session-timeout", "1s", "/x", "--", "true"}, nil, io.Discard, &errb, gozk.Config{})
	if code != exitZK || !strings.Contains(errb.String(), "127.0.0.1:1") {
		t.Fatalf("exit %d: %q", code, errb.String())
	}
}

// The command runs under the lock with the token and node in its
// environment, and zklock exits with the command's code.
func TestZklock_RunsCommandWithToken(t *testing.T) {
	addrs := strings.Join(zktest.Standalone(t), ",")
	var out bytes.Buffer
	code := run([]string{"-servers", addrs, unique("env"), "--", "sh", "-c", `echo "$ZKLOCK_TOKEN $ZKLOCK_NODE"; exit 7`},
		nil, &out, io.Discard, gozk.Config{})
	var token int64
	var node string
	fmt.Sscan(out.String(), &token, &node)
	if code != 7 || token <= 0 || !strings.Contains(node, "/lock-") {
		t.Fatalf("exit %d, output %q", code, out.String())
	}
}

// -timeout gives up with exit 3 while someone else holds the lock.
func TestZklock_Timeout(t *testing.T) {
	addrs := zktest.Standalone(t)
	ctx := context.Background()
	conn, err := gozk.DialContext(ctx, addrs, gozk.Config{SessionTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	path := unique("timeout")
	m, _ := lock.New(conn, path, lock.Options{})
	l, err := m.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	var errb bytes.Buffer
	code := run([]string{"-servers", strings.Join(addrs, ","), "-timeout", "300ms", path, "--", "true"}, nil, io.Discard, &errb, gozk.Config{})
	if code != exitTimeout || !strings.Contains(errb.String(), "still held") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
}

// Concurrent zklock processes exclude each other: each command takes a
// directory that only one can hold at a time.
func TestZklock_ProcessesExclude(t *testing.T) {
	addrs := strings.Join(zktest.Standalone(t), ",")
	bin := filepath.Join(t.TempDir(), "zklock")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	held := filepath.Join(t.TempDir(), "held")
	path := unique("exclude")
	var wg sync.WaitGroup
	codes := make([]int, 4)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(bin, "-servers", addrs, "-timeout", "60s", path, "--",
				"sh", "-c", "mkdir "+held+" || exit 9; sleep 0.2; rmdir "+held)
			err := cmd.Run()
			codes[i] = exitCode(err)
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Errorf("zklock %d exited %d (9: two commands held the lock at once)", i, c)
		}
	}
}

// When the session is lost mid-command, the command is signalled and
// zklock exits 4.
func TestZklock_SessionLostSignalsCommand(t *testing.T) {
	addrs := zktest.Standalone(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	capture := &zktest.SessionCapture{}
	path := unique("lost")
	done := make(chan int, 1)
	var errb bytes.Buffer
	held := &firstWrite{ch: make(chan struct{})}
	go func() {
		done <- run([]string{"-servers", strings.Join(addrs, ","), "-session-timeout", "4s", path, "--",
			"sh", "-c", "echo held; exec sleep 30"}, nil, held, &errb, gozk.Config{Dialer: capture.Dial})
	}()
	// Wait for the lock node, then for the command to run (the lock is
	// held, not being acquired), then expire the node owner's session.
	obs, err := gozk.DialContext(ctx, addrs, gozk.Config{SessionTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	var owner int64
	for owner == 0 {
		kids, _, w, err := obs.ChildrenW(ctx, path)
		switch {
		case errors.Is(err, zkapi.ErrNoNode): // no directory yet: wait for it
			_, exists, ew, err := obs.ExistsW(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if exists {
				continue
			}
			w = ew
		case err != nil:
			t.Fatal(err)
		case len(kids) > 0:
			st, _, _ := obs.Exists(ctx, path+"/"+kids[0])
			owner = st.EphemeralOwner
			continue
		}
		if _, err := w.Wait(ctx); err != nil {
			t.Fatalf("waiting for the lock node: %v", err)
		}
	}
	select {
	case <-held.ch:
	case code := <-done:
		t.Fatalf("zklock exited %d before running the command: %q", code, errb.String())
	case <-ctx.Done():
		t.Fatal("the command never ran")
	}
	if err := capture.Kill(ctx, owner); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != exitLost || !strings.Contains(errb.String(), "lost the lock") {
			t.Fatalf("exit %d: %q", code, errb.String())
		}
	case <-ctx.Done():
		t.Fatal("zklock did not notice the lost session")
	}
}

// firstWrite closes ch at the first write: the command has started.
type firstWrite struct {
	once sync.Once
	ch   chan struct{}
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.ch) })
	return len(p), nil
}
