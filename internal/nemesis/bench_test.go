package nemesis_test

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/nemesis"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi/gozk"
)

// BenchmarkProxy_Exists is one exists round trip to zksim serve's
// server, directly and through a Proxy: what the proxy costs a request.
func BenchmarkProxy_Exists(b *testing.B) {
	_, addr := zktest.ServeFake(b, netserver.Config{Machine: machine.Config{TickMillis: 100}})
	p, err := nemesis.NewProxy(nemesis.ProxyConfig{Servers: []string{addr}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	for _, bc := range []struct {
		name   string
		dialer zk.Dialer
	}{{"direct", nil}, {"proxied", p.Dialer(nil)}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := zktest.Context(b, time.Minute)
			c := zktest.Dial(b, ctx, []string{addr}, gozk.Config{Dialer: bc.dialer})
			for b.Loop() {
				if _, _, err := c.Exists(ctx, "/"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
