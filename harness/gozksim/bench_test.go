package gozksim_test

import (
	"flag"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/gozksim"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// TestBenchLockPaths is a benchmark that needs a test: gozksim's runs
// are synctest bubbles, made by synctest.Test, which takes a *testing.T.
// So it runs as a test, only when benchmarks are asked for (-bench), and
// prints its result as a benchmark line (for cmd/zkbench):
//
//	go test -run BenchLockPaths -bench LockPaths ./harness/gozksim
//
// It measures, on one core (GOMAXPROCS 1), schedules per second of one
// lock workload (3 clients x 3 acquisitions, every default fault kind,
// a random walk, untraced) two ways: go-zookeeper's own Lock on real
// *zk.Conn clients (gozksim.Lock), and its transcription to zkapi on
// zksim's simulated clients (zoo/gozk, harness.Lock). Each op runs one
// schedule of each from the same seed, so both see the same load;
// slowdown-x is the go-zookeeper path's time over the zkapi path's.
func TestBenchLockPaths(t *testing.T) {
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		t.Skip("a benchmark: runs with -bench")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ex, _ := zoo.Lookup(zoo.NameGoZKLock)
	w := harness.Workload{Clients: 3}
	zkapiPath, realPath := harness.Lock(ex.Recipe, w), gozksim.Lock(t, "gozk", goZKLock, w)
	cfg := sim.Config{Faults: sim.DefaultFaults(), NoTrace: true}
	var zkapiTime, realTime time.Duration
	var zkapiSteps, realSteps int
	schedule := func(b *testing.B, w harness.Subject, seed uint64, took *time.Duration, steps *int) {
		start := time.Now()
		rep, err := harness.Run(cfg, sim.NewSeeded(seed), w)
		if err != nil {
			b.Fatal(err)
		}
		*took += time.Since(start)
		*steps += rep.Result.Steps
	}
	res := testing.Benchmark(func(b *testing.B) {
		zkapiTime, realTime, zkapiSteps, realSteps = 0, 0, 0, 0
		seed := uint64(0)
		for b.Loop() {
			seed++
			schedule(b, zkapiPath, seed, &zkapiTime, &zkapiSteps)
			schedule(b, realPath, seed, &realTime, &realSteps)
		}
		n := float64(b.N)
		b.ReportMetric(n/zkapiTime.Seconds(), "zkapi-schedules/s")
		b.ReportMetric(n/realTime.Seconds(), "gozk-schedules/s")
		b.ReportMetric(float64(zkapiSteps)/n, "zkapi-steps/schedule")
		b.ReportMetric(float64(realSteps)/n, "gozk-steps/schedule")
		b.ReportMetric(realTime.Seconds()/zkapiTime.Seconds(), "slowdown-x")
	})
	fmt.Printf("BenchmarkLockPaths\t%s\n", res.String())
}
