package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// BenchmarkServeLoad puts many sessions on one shared directory, zksim
// serve and the real server side by side: each session is a go-zookeeper
// client looping create-ephemeral-sequential, getChildren of the
// directory, exists with a watch on its node, and delete (which fires that
// watch). The directory holds up to one child per session, so the work a
// server does per operation that grows with sessions or watches shows
// here. One op is one request; the metrics are requests per second and
// the 50th and 99th percentile of their latencies, seen by the client.
func BenchmarkServeLoad(b *testing.B) {
	for _, p := range serverProcs {
		b.Run(p.name, func(b *testing.B) {
			if why := p.check(b); why != "" {
				b.Skip(why)
			}
			for _, n := range []int{50, 200, 1000} {
				b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
					dir := b.TempDir()
					prepare(b, p.name, dir)
					addr := freeAddr(b)
					start := p.start
					if p.name == "zksim" {
						start = startZksimUnlimited
					}
					cmd := start(b, filepath.Join(dir, "s"), addr)
					defer stop(cmd)
					firstSession(b, addr)
					serveLoad(b, addr, n)
				})
			}
		})
	}
}

// startZksimUnlimited starts serve without the per-IP connection limit
// (the real server's benchmark config has maxClientCnxns=0 too).
func startZksimUnlimited(b *testing.B, dir, addr string) *exec.Cmd {
	cmd := exec.Command(zksimBin, "serve", "-addr", addr, "-control", "off", "-tick", "500", "-max-conns", "0")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return cmd
}

const loadDir = "/load"

// serveLoad connects n sessions to addr and runs b.N requests among them.
func serveLoad(b *testing.B, addr string, n int) {
	conns := make([]*zk.Conn, n)
	for i := range conns {
		conns[i] = dial(b, addr)
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	acl := zk.WorldACL(zk.PermAll)
	if _, err := conns[0].Create(loadDir, nil, 0, acl); err != nil && err != zk.ErrNodeExists {
		b.Fatal(err)
	}
	var (
		left    atomic.Int64 // requests still to start
		mu      sync.Mutex
		all     []time.Duration
		failure error
	)
	left.Store(int64(b.N))
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat, err := loadLoop(c, acl, &left)
			mu.Lock()
			all = append(all, lat...)
			if err != nil && failure == nil {
				failure = err
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	b.StopTimer()
	if failure != nil {
		b.Fatal(failure)
	}
	slices.Sort(all)
	b.ReportMetric(float64(len(all))/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(percentile(all, 50), "p50-ms")
	b.ReportMetric(percentile(all, 99), "p99-ms")
	b.ReportMetric(0, "ns/op") // per-request time across n clients means nothing
}

// loadLoop runs one session's cycle until left runs out, returning the
// latency of each request it made. A cycle always completes, so that no
// node is left behind; the watch event of the delete is drained.
func loadLoop(c *zk.Conn, acl []zk.ACL, left *atomic.Int64) ([]time.Duration, error) {
	var lat []time.Duration
	timed := func(f func() error) error {
		t := time.Now()
		err := f()
		lat = append(lat, time.Since(t))
		return err
	}
	for left.Add(-4) > -4 { // b.N requests, rounded up to whole cycles
		var path string
		var events <-chan zk.Event
		steps := []func() error{
			func() (err error) {
				path, err = c.Create(loadDir+"/n-", nil, zk.FlagEphemeral|zk.FlagSequence, acl)
				return err
			},
			func() error { _, _, err := c.Children(loadDir); return err },
			func() (err error) { _, _, events, err = c.ExistsW(path); return err },
			func() error { return c.Delete(path, -1) },
		}
		for _, step := range steps {
			if err := timed(step); err != nil {
				return lat, err
			}
		}
		select {
		case <-events:
		case <-time.After(time.Minute):
			return lat, fmt.Errorf("no NodeDeleted for %s after a minute", path)
		}
	}
	return lat, nil
}

// percentile is the q-th percentile of sorted latencies, in milliseconds.
func percentile(sorted []time.Duration, q int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := min(len(sorted)-1, len(sorted)*q/100)
	return float64(sorted[i]) / float64(time.Millisecond)
}
