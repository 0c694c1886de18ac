package zktest

import (
	"testing"

	"github.com/zksim/zksim/internal/netserver"
)

// ServeFake starts the wire-protocol fake (zksim serve's server) with cfg
// on a free loopback port, closed when t ends, and returns it with its
// address: the stand-in for a real server that any unmodified client can
// dial.
func ServeFake(t testing.TB, cfg netserver.Config) (*netserver.Server, string) {
	t.Helper()
	srv, err := netserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, addr.String()
}
