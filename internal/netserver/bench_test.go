package netserver_test

import (
	"testing"

	"github.com/go-zookeeper/zk"
)

// BenchmarkServer_CreateDelete is a create+delete pair through
// go-zookeeper against the server in the same process, over loopback.
// (cmd/zksim's BenchmarkServeCreateDelete compares separate processes with
// the real server.)
func BenchmarkServer_CreateDelete(b *testing.B) {
	srv := newServer(b)
	addr, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	conn, _ := connect(b, addr.String())
	acl := zk.WorldACL(zk.PermAll)
	for b.Loop() {
		if _, err := conn.Create("/bench", nil, 0, acl); err != nil {
			b.Fatal(err)
		}
		if err := conn.Delete("/bench", -1); err != nil {
			b.Fatal(err)
		}
	}
}
