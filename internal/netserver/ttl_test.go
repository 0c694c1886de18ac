package netserver_test

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// TestTTL_Expires: the container reaper deletes a TTL node without
// children once its mtime is more than its TTL old, and leaves one with a
// child (ContainerManager.getCandidates). Both servers reap every second:
// the real one started with -Dznode.container.checkIntervalMs=1000
// (zktest.EnvExtended), the fake every 2 ticks of 500 ms.
func TestTTL_Expires(t *testing.T) {
	t.Run("fake", func(t *testing.T) {
		cfg := ttlServerConfig()
		cfg.Machine.ContainerCheckTicks = 2
		_, addr := newFake(t, cfg)
		testTTLExpires(t, addr)
	})
	t.Run("real", func(t *testing.T) { testTTLExpires(t, zktest.Extended(t)) })
}

func testTTLExpires(t *testing.T, addr string) {
	ctx := zktest.Context(t, time.Minute)
	root := zktest.Root(t, ctx, zktest.Dial(t, ctx, []string{addr}, gozk.Config{}), "/zksim-ttl-")
	c := dialRaw(t, addr)
	c.handshake(10000, 0, nil)
	c.write(cat(createTTLReq(1, root+"/t", 5, 300), createTTLReq(2, root+"/kept", 5, 300),
		create(3, root+"/kept/child", "", 0), exists(4, root+"/t", true)))
	c.zxid(5)
	created := time.Now()
	b, err := c.frame(10 * time.Second)
	if err != nil {
		t.Fatalf("no notification within 10 s of creating a TTL node of 300 ms: %v", err)
	}
	r := &jr{b: b[16:]}
	if xid := int32(binary.BigEndian.Uint32(b)); xid != wire.XidWatch {
		t.Fatalf("got xid %d, want a notification", xid)
	}
	if typ, _, p := r.i32(), r.i32(), r.str(); typ != int32(zkapi.EventNodeDeleted) || p != fmt.Sprintf("%q", root+"/t") {
		t.Fatalf("notification type %d path %s, want NodeDeleted %s/t", typ, p, root)
	}
	t.Logf("TTL node reaped %v after its create", time.Since(created).Round(10*time.Millisecond))
	c.write(exists(6, root+"/kept", false))
	if b, err := c.frame(5 * time.Second); err != nil || int32(binary.BigEndian.Uint32(b[12:])) != 0 {
		t.Errorf("a TTL node with a child was reaped (exists: %x, %v)", b, err)
	}
}

// TestTTL_ServeDefaultsOff: a server configured as zksim serve is by
// default refuses TTL nodes as 3.8.0 does without extendedTypesEnabled
// (raw case "createTTL with a TTL mode"), and serves them with
// ExtendedTypes.
func TestTTL_ServeDefaultsOff(t *testing.T) {
	for _, ext := range []bool{false, true} {
		_, addr := newFake(t, netserver.Config{Machine: machine.Config{TickMillis: 500, ExtendedTypes: ext}})
		ctx := zktest.Context(t, time.Minute)
		conn := zktest.Dial(t, ctx, []string{addr}, gozk.Config{})
		var ttl zkapi.TTLCreator = conn
		_, err := ttl.CreateTTL(ctx, "/t", nil, zkapi.PersistentWithTTL, 1000)
		if want := map[bool]error{false: zkapi.ErrUnimplemented, true: nil}[ext]; !errorIs(err, want) {
			t.Errorf("ExtendedTypes %v: createTTL through go-zookeeper: %v, want %v", ext, err, want)
		}
	}
}

func errorIs(err, want error) bool {
	if want == nil {
		return err == nil
	}
	return err != nil && proto.Code(err) == proto.Code(want)
}
