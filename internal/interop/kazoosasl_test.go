package interop_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/zktest"
)

// TestKazoo_SASLWithoutJAAS runs kazoo's SASL client (DIGEST-MD5, as in
// kazoo's own test_sasl.py) against a server with no SASL configured. On
// ZooKeeper 3.8.0 every token it sends is answered with an empty one and
// it answers with another, without end, until its session expires (sasl
// packets do not renew it) and the server closes the connection: kazoo
// then gives the session up as AUTH_FAILED ("Connection dropped in
// SASL"). On a fake that renewed the session on each packet it hung
// (issue 11). kazoo's own SASL tests need a server with a JAAS Server
// section, which neither has. Checked on the real server when configured.
func TestKazoo_SASLWithoutJAAS(t *testing.T) {
	t.Run("fake", func(t *testing.T) { testKazooSASL(t, newFake(t).addr) })
	t.Run("real", func(t *testing.T) { testKazooSASL(t, zktest.Standalone(t)[0]) })
}

func testKazooSASL(t *testing.T, addr string) {
	py := zktest.KazooPython(t)
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "kazoo-sasl.py"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := zktest.Context(t, time.Minute)
	p := zktest.StartScript(t, ctx, "", py, script, "--hosts", addr, "--timeout", "2", "--wait", "20")
	p.Expect(t, ctx, `^started$`)
	p.Expect(t, ctx, `^ended AUTH_FAILED$`)
	p.Wait(t)
}
