package netserver_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/machine"
)

// zkCli is Debian's ZooKeeper command-line client (package zookeeper).
const zkCli = "/usr/share/zookeeper/bin/zkCli.sh"

// TestZkCli_CreateLsGetDelete drives the fake with the Java client behind
// zkCli.sh, unmodified, one command per JVM (its non-interactive mode).
func TestZkCli_CreateLsGetDelete(t *testing.T) {
	if _, err := os.Stat(zkCli); err != nil {
		t.Skipf("%s not found (Debian's zookeeper package provides it)", zkCli)
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("no java on PATH for zkCli.sh")
	}
	checkLeaks(t)
	srv, addr := newFake(t, serverConfig())
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		// -waitforconnection: the client prints the connection event
		// before it counts the connection latch down, so the event is in
		// the output before the command runs. Without it the JVM can exit
		// after the command and before the event thread prints.
		cmd := exec.CommandContext(ctx, zkCli, append([]string{"-server", addr, "-waitforconnection"}, args...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("zkCli.sh %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		if !strings.Contains(out.String(), "state:SyncConnected type:None") {
			t.Fatalf("zkCli.sh %s never connected:\n%s", strings.Join(args, " "), out.String())
		}
		return out.String()
	}
	// The client's event thread prints the connection event in the
	// middle of the command's output, even inside a line: has looks for
	// text in the output without it and without whitespace.
	has := func(out, text string) bool {
		for _, s := range []string{"WATCHER::", "WatchedEvent state:SyncConnected type:None path:null"} {
			out = strings.ReplaceAll(out, s, "")
		}
		squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
		return strings.Contains(squash(out), squash(text))
	}
	if out := run("create", "/x", "data"); !has(out, "Created /x") {
		t.Errorf("create /x data: no \"Created /x\" in\n%s", out)
	}
	if out := run("ls", "/"); !has(out, "[x, zookeeper]") {
		t.Errorf("ls /: no \"[x, zookeeper]\" in\n%s", out)
	}
	if out := run("get", "/x"); !has(out, "data") {
		t.Errorf("get /x: no \"data\" in\n%s", out)
	}
	run("delete", "/x")
	srv.Inspect(func(m *machine.Machine) {
		if _, _, ok := m.Node("/x"); ok {
			t.Error("/x still exists after zkCli.sh delete /x")
		}
	})
}
