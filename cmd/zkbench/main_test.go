package main

import (
	"errors"
	"strings"
	"testing"
)

const sample = `goos: linux
BenchmarkCreateDelete/fake-2         	  830766	      1303 ns/op	     744 B/op	      15 allocs/op
BenchmarkCreateDelete/real-2         	    2388	    513039 ns/op	     976 B/op	      23 allocs/op
BenchmarkGet/fake-2                  	 3606300	       331.0 ns/op
BenchmarkStandardWorkload/random-walk 	   18261	    196960 ns/op	      5077 schedules/s	       271.3 steps/schedule
BenchmarkZooFind/dirwatch-2         	       1	   9979733 ns/op	         0.4850 median-ms	         1.000 median-schedules	         0.7870 p95-ms	         1.000 p95-schedules
BenchmarkCheckLocks/10k-2        	     100	  12699109 ns/op
BenchmarkBarrierSchedules/double/pct-2         	  100000	    141058 ns/op	      7089 schedules/s	       195.3 steps/schedule
BenchmarkBarrierZooFind/leaveearly/pct-2 	       1	   9979733 ns/op	         0.2000 median-ms	         3.000 median-schedules	         1.500 p95-ms	         9.000 p95-schedules
BenchmarkBarrierExploreZoo/dirleave-2             	       1	   1174825 ns/op	         4.000 clients	         0 decisions	         0 deviations	         1.000 schedules	       105.0 states
BenchmarkBarrierExhaust/double/2x2/K=1-2          	       1	3370391945 ns/op	     14090 schedules	    341784 states	    101408 states/s
BenchmarkHandoff/ensemble/zksim-Mutex-2 	 100	 900000 ns/op	 850000 ns-p50	 2000000 ns-p99	 4.98 req/handoff
BenchmarkServeLoad/zksim/sessions=1000-2 	 40000	 14000 ops/s	 60.5 p50-ms	 151.2 p99-ms	 27.0 server-cpu-us/op
BenchmarkServeLoad/real/sessions=1000-2 	 40000	 10000 ops/s	 93.0 p50-ms	 300.0 p99-ms	 66.0 server-cpu-us/op
BenchmarkServeLoad/zksim/sessions=50-2 	 40000	 37000 ops/s	 1.3 p50-ms	 5.5 p99-ms
`

func TestReport_FromBenchOutput(t *testing.T) {
	r, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := report(&b, r, "waiters ...\n"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| CreateDelete | 1.30 µs (767460/s) | 513.04 µs (1949/s) | 394x |",
		"| Get | 331 ns (3021148/s) | not run (no server) | - |",
		"| random-walk | 5077 | 271 |",
		"| zoo/dirwatch | 1 | 1 | 0.5 ms | 0.8 ms |",
		"| double/pct | 7089 | 195 |",
		"| zoo/leaveearly/pct | 3 | 9 | 0.2 ms | 1.5 ms |",
		"| zoo/dirleave | 4 | 0 | 105 | 1 | 1.17 ms | 0 |",
		"| double/2x2/K=1 | 341784 | 14090 | 3.37 s | 101408 |",
		"| 10k operations | 12.70 ms | - |",
		"| ensemble | zksim-Mutex | 900.00 µs | 850.00 µs | 2.00 ms | 4.98 |",
		"one run of `scripts/bench.sh`",
		"| 1000 | 14000 | 60.5 ms | 151.2 ms | 10000 | 93.0 ms | 300.0 ms | 1.4x | 27 / 66 µs |",
		"| 50 | 37000 | 1.3 ms | 5.5 ms | not run | - | - | - | - |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestReport_MissingBenchmark(t *testing.T) {
	r, _ := parse(strings.NewReader("BenchmarkGet/fake-2 1 331 ns/op\n"))
	if err := report(&strings.Builder{}, r, ""); !errors.Is(err, errMissing) {
		t.Fatalf("got %v", err)
	}
}

func TestLoadReport_SectionAlone(t *testing.T) {
	r, _ := parse(strings.NewReader(sample))
	var b strings.Builder
	if err := loadReport(&b, r, ""); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{"## zksim serve against a real ZooKeeper under load", "| 1000 | 14000 | 60.5 ms | 151.2 ms | 10000 | 93.0 ms | 300.0 ms | 1.4x |", "scripts/bench.sh load"} {
		if !strings.Contains(got, want) {
			t.Errorf("load report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Schedule exploration") {
		t.Errorf("load report holds other sections:\n%s", got)
	}
	if err := loadReport(&strings.Builder{}, results{}, ""); !errors.Is(err, errMissing) {
		t.Fatalf("without BenchmarkServeLoad: got %v", err)
	}
}
