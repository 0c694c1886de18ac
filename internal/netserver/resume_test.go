package netserver_test

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// TestResume_ExpiresByTheNewTimeout: a client that resumes its session
// asking for a shorter timeout gets it, and the session then expires by
// it once the client is gone, not by the timeout it was created with:
// ZooKeeperServer.revalidateSession, and every touch after, hand the
// session tracker the connection's timeout (SessionTrackerImpl.touchSession).
// Checked on the real server when one is configured.
func TestResume_ExpiresByTheNewTimeout(t *testing.T) {
	t.Run("fake", func(t *testing.T) {
		_, addr := newFake(t, serverConfig())
		testResumeTimeout(t, addr)
	})
	t.Run("real", func(t *testing.T) { testResumeTimeout(t, zktest.Standalone(t)[0]) })
}

func testResumeTimeout(t *testing.T, addr string) {
	const created, resumed = 10000, 1000 // ms: 20 and 2 ticks of 500 ms
	ctx := zktest.Context(t, time.Minute)
	root := zktest.Root(t, ctx, zktest.Dial(t, ctx, []string{addr}, gozk.Config{}), "/zksim-resume-")
	path := root + "/e"

	owner := dialRaw(t, addr)
	sid, pw, got := owner.handshake(created, 0, nil)
	if got != created {
		t.Fatalf("new session: timeout %d, want %d", got, created)
	}
	owner.write(create(1, path, "", 1)) // ephemeral
	owner.zxid(2)

	watcher := dialRaw(t, addr)
	watcher.handshake(created, 0, nil)
	watcher.write(exists(1, path, true))
	if _, before := watcher.zxid(2); len(before) != 1 {
		t.Fatalf("exists watch on %s: replies %q", path, before)
	}

	again := dialRaw(t, addr)
	if id, _, got := again.handshake(resumed, sid, pw); id != sid || got != resumed {
		t.Fatalf("resume of %#x: session %#x, timeout %d; want %#x, %d", sid, id, got, sid, resumed)
	}
	again.nc.Close()
	gone := time.Now()

	// Well before the 10 s the session was created with, and before the
	// watcher's own session could expire.
	b, err := watcher.frame(6 * time.Second)
	if err != nil {
		t.Fatalf("no notification within 6 s of the client going (%v): the session outlived its resumed %d ms timeout", err, resumed)
	}
	if xid := int32(binary.BigEndian.Uint32(b)); xid != wire.XidWatch {
		t.Fatalf("watcher got xid %d, want a notification", xid)
	}
	r := &jr{b: b[16:]}
	if typ, _, p := r.i32(), r.i32(), r.str(); typ != int32(zkapi.EventNodeDeleted) || p != fmt.Sprintf("%q", path) {
		t.Fatalf("notification type %d path %s, want NodeDeleted %s", typ, p, path)
	}
	t.Logf("ephemeral gone %v after the client, with a resumed timeout of %d ms", time.Since(gone).Round(10*time.Millisecond), resumed)
}
