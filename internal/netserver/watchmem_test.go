package netserver_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/wire"
)

// BenchmarkServer_WatchMemory sets 1M exists watches through the server,
// 5,000 on distinct paths for each of 200 sessions (pipelined over raw
// connections), closes every session, and reports the server's heap in
// use (MiB) with the watches set and once every connection has gone.
func BenchmarkServer_WatchMemory(b *testing.B) {
	const sessions, each = 200, 5000
	for b.Loop() {
		base := heapInuse()
		srv, err := netserver.New(netserver.Config{Machine: machine.Config{TickMillis: 2000}, MaxClientCnxns: -1})
		if err != nil {
			b.Fatal(err)
		}
		addr, err := srv.Listen("127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		conns := make([]*rawConn, sessions)
		for i := range conns {
			conns[i] = dialRaw(b, addr.String())
			conns[i].handshake(20000, 0, nil)
			var batch []byte
			for j := range each {
				batch = append(batch, exists(int32(j+1), fmt.Sprintf("/w/%d/%d", i, j), true)...)
			}
			conns[i].write(batch)
			for range each {
				if _, err := conns[i].frame(10 * time.Second); err != nil {
					b.Fatal(err)
				}
			}
		}
		set := heapInuse()
		for _, c := range conns {
			c.write(req(each+1, wire.OpCloseSession, nil))
			c.rest(10 * time.Second)
			c.nc.Close()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := netserver.WaitConns(ctx, srv, 0); err != nil {
			b.Fatal(err)
		}
		cancel()
		kept := heapInuse()
		runtime.KeepAlive(srv)
		srv.Close()
		b.ReportMetric(mib(set-base), "MiB-set")
		b.ReportMetric(mib(kept-base), "MiB-kept")
	}
}

func heapInuse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

func mib(n uint64) float64 { return float64(int64(n)) / (1 << 20) }
