package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
					serveLoad(b, addr, n, cmd.Process.Pid)
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
// Besides throughput and latency it reports the CPU time the server
// process (pid) spent per request, which another load on the machine
// disturbs less than it does throughput.
func serveLoad(b *testing.B, addr string, n, pid int) {
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
	cpu0, cpuOK := processCPU(pid)
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
	cpu1, cpuOK1 := processCPU(pid)
	if failure != nil {
		b.Fatal(failure)
	}
	slices.Sort(all)
	b.ReportMetric(float64(len(all))/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(percentile(all, 50), "p50-ms")
	b.ReportMetric(percentile(all, 99), "p99-ms")
	if cpuOK && cpuOK1 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(time.Microsecond)/float64(len(all)), "server-cpu-us/op")
	}
	b.ReportMetric(0, "ns/op") // per-request time across n clients means nothing
}

// processCPU is the user+system CPU time process pid has used, from
// /proc (Linux); false elsewhere.
func processCPU(pid int) (time.Duration, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, utime 14 and stime 15 (proc(5)).
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const clkTck = 100 // USER_HZ, 100 on every Linux the project runs on
	return time.Duration(utime+stime) * time.Second / clkTck, true
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
