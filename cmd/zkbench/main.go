// Command zkbench turns one run of zksim's benchmarks into BENCHMARKS.md.
//
// scripts/bench.sh runs the benchmarks (with real servers) and pipes their
// output here:
//
//	go test -run - -bench . ./... | zkbench -herd herd.txt -o BENCHMARKS.md
//
// It reads `go test -bench` lines, and writes tables with the ratios the
// project tracks, stating the machine and that the figures come from one
// run. Exit codes: 0 written, 1 a required benchmark is missing, 2 usage.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// results maps a benchmark name (without the -N CPU suffix) to its
// metrics by unit.
type results map[string]map[string]float64

func parse(r io.Reader) (results, error) {
	res := results{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		m := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			m[f[i+1]] = v
		}
		res[name] = m
	}
	return res, sc.Err()
}

func (r results) get(name, unit string) (float64, bool) {
	v, ok := r[name][unit]
	return v, ok
}

func main() {
	out := flag.String("o", "BENCHMARKS.md", "file to write")
	herd := flag.String("herd", "", "output of `zksim herd` to include")
	loadOnly := flag.Bool("load", false, "write only the section on serve under load (BenchmarkServeLoad), with its own machine line; -o - for stdout")
	flag.Usage = func() {
		fmt.Fprint(os.Stderr, "usage: go test -bench ... | zkbench [-herd FILE] [-load] [-o BENCHMARKS.md]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	res, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintf(os.Stderr, "zkbench: %v\n", err)
		os.Exit(1)
	}
	var herdText []byte
	if *herd != "" {
		if herdText, err = os.ReadFile(*herd); err != nil {
			fmt.Fprintf(os.Stderr, "zkbench: %v\n", err)
			os.Exit(2)
		}
	}
	var b strings.Builder
	write := report
	if *loadOnly {
		write = loadReport
	}
	if err := write(&b, res, string(herdText)); err != nil {
		fmt.Fprintf(os.Stderr, "zkbench: %v\n", err)
		os.Exit(1)
	}
	if *out == "-" {
		_, err = os.Stdout.WriteString(b.String())
	} else {
		err = os.WriteFile(*out, []byte(b.String()), 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "zkbench: %v\n", err)
		os.Exit(1)
	}
}

var errMissing = errors.New("benchmark missing from the input")

// report writes the Markdown; it fails if a benchmark every report needs
// is missing.
func report(w io.Writer, r results, herd string) error {
	need := []string{"BenchmarkCreateDelete/fake", "BenchmarkStandardWorkload/random-walk", "BenchmarkCheckLocks/10k"}
	for _, n := range need {
		if _, ok := r[n]; !ok {
			return fmt.Errorf("%w: %s", errMissing, n)
		}
	}
	fmt.Fprintf(w, "# zksim benchmarks\n\nAll figures come from one run of `scripts/bench.sh` on %s, %s.\n", machine(), time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(w, "They are measurements, not guarantees; rerun the script to compare on your machine.\n\n")

	fmt.Fprint(w, "## fakezk against a real ZooKeeper (same code, single goroutine)\n\n")
	fmt.Fprint(w, "| operation | fakezk in-process | real standalone via go-zookeeper | real / fake |\n|---|---|---|---|\n")
	for _, op := range []string{"CreateDelete", "Get", "Exists"} {
		fake, okF := r.get("Benchmark"+op+"/fake", "ns/op")
		real, okR := r.get("Benchmark"+op+"/real", "ns/op")
		if !okF {
			continue // not in this run: no row rather than a made-up 0
		}
		row := fmt.Sprintf("| %s | %s (%s) |", op, dur(fake), opsPerSec(fake))
		if okF && okR {
			row += fmt.Sprintf(" %s (%s) | %.0fx |", dur(real), opsPerSec(real), real/fake)
		} else {
			row += " not run (no server) | - |"
		}
		fmt.Fprintln(w, row)
	}
	if v, ok := r.get("BenchmarkMachine_CreateDelete", "ns/op"); ok {
		g, _ := r.get("BenchmarkMachine_Get", "ns/op")
		fmt.Fprintf(w, "\nThe state machine alone: create+delete %s, get %s.\n", dur(v), dur(g))
	}

	serveTable(w, r)
	loadTable(w, r)

	fmt.Fprint(w, "\n## Schedule exploration (standard workload: 5 clients x 3 acquisitions, every fault, one core)\n\n")
	fmt.Fprint(w, "| strategy | schedules/s | steps/schedule |\n|---|---|---|\n")
	for _, s := range []string{"random-walk", "pct"} {
		if v, ok := r.get("BenchmarkStandardWorkload/"+s, "schedules/s"); ok {
			st, _ := r.get("BenchmarkStandardWorkload/"+s, "steps/schedule")
			fmt.Fprintf(w, "| %s | %.0f | %.0f |\n", s, v, st)
		}
	}

	fmt.Fprint(w, "\n## Finding each zoo bug (over 20 seeds)\n\n")
	fmt.Fprint(w, "| bug | median schedules | p95 schedules | median time | p95 time |\n|---|---|---|---|---|\n")
	for _, name := range names(r, "BenchmarkZooFind/") {
		m := r[name]
		fmt.Fprintf(w, "| zoo/%s | %.0f | %.0f | %.1f ms | %.1f ms |\n", strings.TrimPrefix(name, "BenchmarkZooFind/"),
			m["median-schedules"], m["p95-schedules"], m["median-ms"], m["p95-ms"])
	}

	exploreTables(w, r)
	reductionsTable(w, r)
	barrierTables(w, r)

	fmt.Fprint(w, "\n## Checking lock histories\n\n")
	fmt.Fprint(w, "linearize.Locks decides every history exactly, without search; porcupine's search is what it replaced as the verdict (it still draws the timeline).\n\n")
	fmt.Fprint(w, "| lock history | linearize.Locks | porcupine's search alone |\n|---|---|---|\n")
	for _, n := range []string{"1k", "10k"} {
		if v, ok := r.get("BenchmarkCheckLocks/"+n, "ns/op"); ok {
			p, okP := r.get("BenchmarkPorcupine/"+n, "ns/op")
			ps := "-"
			if okP {
				ps = dur(p)
			}
			fmt.Fprintf(w, "| %s operations | %s | %s |\n", n, dur(v), ps)
		}
	}

	if herd != "" {
		fmt.Fprintf(w, "\n## Herd effect (`zksim herd`)\n\n```\n%s```\n", herd)
	}

	fmt.Fprint(w, "\n## Lock handoff on a real ensemble (zksim's lock.Mutex against go-zookeeper's zk.Lock)\n\n")
	fmt.Fprint(w, "| setup | lock | mean | p50 | p99 | requests per handoff |\n|---|---|---|---|---|---|\n")
	ran := false
	for _, setup := range []string{"ensemble", "standalone"} {
		for _, l := range []string{"zksim-Mutex", "gozk-Lock"} {
			name := "BenchmarkHandoff/" + setup + "/" + l
			if m, ok := r[name]; ok {
				ran = true
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %.2f |\n", setup, l, dur(m["ns/op"]), dur(m["ns-p50"]), dur(m["ns-p99"]), m["req/handoff"])
			}
		}
	}
	if !ran {
		fmt.Fprint(w, "Not run: no real servers were configured.\n")
	}
	return nil
}

// exploreTables reports the systematic search: the states and schedules
// until it finds each zoo bug, and the good locks exhausted at fixed
// bounds with the reduction against plain enumeration.
func exploreTables(w io.Writer, r results) {
	zoo := names(r, "BenchmarkExploreZoo/")
	if len(zoo) > 0 {
		fmt.Fprint(w, "\n## Systematic search: finding each zoo bug (one fault of each kind, deepening on deviations, one core)\n\n")
		fmt.Fprint(w, "With symmetry: the same search with Bounds.Symmetry (`-symmetry`), clients interchangeable.\n\n")
		fmt.Fprint(w, "| bug | clients x 1 | deviations | states | schedules | time | counterexample lines | with symmetry: deviations, states, time |\n|---|---|---|---|---|---|---|---|\n")
		for _, name := range zoo {
			m := r[name]
			bug := strings.TrimPrefix(name, "BenchmarkExploreZoo/")
			sym := "-"
			if ms, ok := r["BenchmarkExploreZooSymmetry/"+bug]; ok {
				sym = fmt.Sprintf("%.0f, %.0f, %s", ms["deviations"], ms["states"], dur(ms["ns/op"]))
			}
			fmt.Fprintf(w, "| zoo/%s | %.0f | %.0f | %.0f | %.0f | %s | %.0f | %s |\n", bug,
				m["clients"], m["deviations"], m["states"], m["schedules"], dur(m["ns/op"]), m["trace-lines"], sym)
		}
	}
	ex := names(r, "BenchmarkExploreExhaust/")
	if len(ex) > 0 {
		fmt.Fprint(w, "\n## Systematic search: good locks exhausted at fixed bounds (one fault of each kind, one core)\n\n")
		fmt.Fprint(w, "Reduction: schedules plain enumeration (no fingerprints) runs for the same bounds, over those the search runs.\n\n")
		fmt.Fprint(w, "| lock / workload / deviations | states | schedules | time | states/s | reduction |\n|---|---|---|---|---|---|\n")
		for _, name := range ex {
			m := r[name]
			fmt.Fprintf(w, "| %s | %.0f | %.0f | %s | %.0f | %.2fx |\n", strings.TrimPrefix(name, "BenchmarkExploreExhaust/"),
				m["states"], m["schedules"], dur(m["ns/op"]), m["states/s"], m["reduction"])
		}
	}
}

// reductionsTable reports what each reduction saves on the whole space
// of a small workload (BenchmarkExploreReductions).
func reductionsTable(w io.Writer, r results) {
	rs := names(r, "BenchmarkExploreReductions/")
	if len(rs) == 0 {
		return
	}
	fmt.Fprint(w, "\n## Systematic search: what each reduction saves (lock, 2 clients x 1, no deviation bound, one core)\n\n")
	fmt.Fprint(w, "Every schedule of the workload, complete: plain enumeration, then state fingerprints with sleep sets, then symmetry too.\n\n")
	fmt.Fprint(w, "| faults / reductions | schedules | distinct states | time |\n|---|---|---|---|\n")
	for _, name := range rs {
		m := r[name]
		states := "-"
		if m["states"] > 0 {
			states = fmt.Sprintf("%.0f", m["states"])
		}
		fmt.Fprintf(w, "| %s | %.0f | %s | %s |\n", strings.TrimPrefix(name, "BenchmarkExploreReductions/"), m["schedules"], states, dur(m["ns/op"]))
	}
}

// names lists the benchmarks under prefix, sorted.
func names(r results, prefix string) []string {
	var out []string
	for name := range r {
		if strings.HasPrefix(name, prefix) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// serveTable compares zksim serve with the real standalone server, each
// in its own process, through go-zookeeper over loopback.
func serveTable(w io.Writer, r results) {
	fmt.Fprint(w, "\n## zksim serve against a real ZooKeeper (separate processes, go-zookeeper over loopback)\n\n")
	fmt.Fprint(w, "| measure | zksim serve | real standalone | ratio |\n|---|---|---|---|\n")
	fs, okF := r.get("BenchmarkServeStartup/zksim", "ns/op")
	rs, okR := r.get("BenchmarkServeStartup/real", "ns/op")
	switch {
	case okF && okR:
		fmt.Fprintf(w, "| process start to first session | %s | %s | %.0fx faster |\n", dur(fs), dur(rs), rs/fs)
	case okF:
		fmt.Fprintf(w, "| process start to first session | %s | not run | - |\n", dur(fs))
	}
	fc, okF := r.get("BenchmarkServeCreateDelete/zksim", "pairs/s")
	rc, okR := r.get("BenchmarkServeCreateDelete/real", "pairs/s")
	switch {
	case okF && okR:
		fmt.Fprintf(w, "| create+delete pairs per second | %.0f | %.0f | %.1fx |\n", fc, rc, fc/rc)
	case okF:
		fmt.Fprintf(w, "| create+delete pairs per second | %.0f | not run | - |\n", fc)
	}
}

// loadReport writes the load section alone, saying which run it comes
// from, for scripts/bench.sh load; it fails without BenchmarkServeLoad.
func loadReport(w io.Writer, r results, _ string) error {
	if len(names(r, "BenchmarkServeLoad/")) == 0 {
		return fmt.Errorf("%w: BenchmarkServeLoad", errMissing)
	}
	loadTable(w, r)
	fmt.Fprintf(w, "\nFrom one run of `scripts/bench.sh load` on %s, %s: both servers in the same run.\n", machine(), time.Now().UTC().Format("2006-01-02"))
	return nil
}

// loadTable compares zksim serve with the real standalone server under
// many sessions looping create-ephemeral-sequential, getChildren,
// exists-watch and delete on one shared directory (BenchmarkServeLoad).
func loadTable(w io.Writer, r results) {
	const name = "BenchmarkServeLoad/"
	if len(names(r, name)) == 0 {
		return
	}
	fmt.Fprint(w, "\n## zksim serve against a real ZooKeeper under load (sessions sharing one directory)\n\n")
	fmt.Fprint(w, "Each session is a go-zookeeper client looping create-ephemeral-sequential, getChildren, "+
		"exists with a watch and delete on one directory; an op is one request, latency as the client sees it.\n\n")
	fmt.Fprint(w, "| sessions | serve ops/s | serve p50 | serve p99 | real ops/s | real p50 | real p99 | ratio | server CPU per op, serve / real |\n"+
		"|---|---|---|---|---|---|---|---|---|\n")
	for _, n := range []int{50, 200, 1000} {
		cell := func(server string) (string, float64, float64) {
			m, ok := r[fmt.Sprintf("%s%s/sessions=%d", name, server, n)]
			if !ok {
				return "not run | - | -", 0, 0
			}
			return fmt.Sprintf("%.0f | %.1f ms | %.1f ms", m["ops/s"], m["p50-ms"], m["p99-ms"]), m["ops/s"], m["server-cpu-us/op"]
		}
		fake, fo, fc := cell("zksim")
		real, ro, rc := cell("real")
		ratio, cpu := "-", "-"
		if fo > 0 && ro > 0 {
			ratio = fmt.Sprintf("%.1fx", fo/ro)
		}
		if fc > 0 && rc > 0 {
			cpu = fmt.Sprintf("%.0f / %.0f µs", fc, rc)
		}
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s |\n", n, fake, real, ratio, cpu)
	}
}

func dur(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

func opsPerSec(ns float64) string {
	if ns <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f/s", 1e9/ns)
}

// machine describes the host from /proc where it can.
func machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int
		fmt.Sscanf(strings.SplitN(string(b), "\n", 2)[0], "MemTotal: %d kB", &kb)
		mem = fmt.Sprintf(", %.0f GiB", float64(kb)/(1<<20))
	}
	return fmt.Sprintf("%d CPUs (%s)%s, %s %s/%s", runtime.NumCPU(), cpu, mem, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
