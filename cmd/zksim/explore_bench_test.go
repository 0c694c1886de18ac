//go:build unix

package main

import (
	"io"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkExploreCores: schedules per second of zksim run's exploration
// on one core (-parallel 1 with GOMAXPROCS=1) and on two (-parallel 2 with
// GOMAXPROCS=2), their ratio, and the CPU time (user+system, every
// thread) per schedule on each: parallel work that costs more CPU per
// schedule than sequential work is overhead (handoffs, idle threads
// woken). One op explores 10,000 seeds on each (a batch of 32 per
// handoff leaves at most one batch of imbalance at the end). Workloads: "standard" is
// sim's BenchmarkStandardWorkload (5 clients x 3 acquisitions of the lock,
// every fault, no deadlines, no followers); "run-default" is what zksim
// run explores by default (deadlines on half the acquisitions, a follower
// on odd seeds).
func BenchmarkExploreCores(b *testing.B) {
	for _, wl := range []struct{ name, args string }{
		{"standard", "-followers 0 -deadline-ticks 0"},
		{"run-default", ""},
	} {
		b.Run(wl.name, func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
			const seeds = 10000
			var wall, cpu [2]time.Duration
			for b.Loop() {
				for i, cores := range []int{1, 2} {
					runtime.GOMAXPROCS(cores)
					args := append([]string{"run", "-schedules", strconv.Itoa(seeds), "-parallel", strconv.Itoa(cores), "-progress", "0"},
						strings.Fields(wl.args)...)
					start, cpu0 := time.Now(), cpuTime(b)
					if code := run(args, io.Discard, io.Discard); code != 0 {
						b.Fatalf("%v: exit %d", args, code)
					}
					wall[i] += time.Since(start)
					cpu[i] += cpuTime(b) - cpu0
				}
			}
			runs := float64(b.N * seeds)
			one, two := runs/wall[0].Seconds(), runs/wall[1].Seconds()
			b.ReportMetric(one, "schedules/s-1core")
			b.ReportMetric(two, "schedules/s-2cores")
			b.ReportMetric(two/one, "ratio")
			b.ReportMetric(float64(cpu[0].Microseconds())/runs, "cpu-us/schedule-1core")
			b.ReportMetric(float64(cpu[1].Microseconds())/runs, "cpu-us/schedule-2cores")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
