#!/usr/bin/env bash
# The benchmark command: runs zksim's benchmarks once on this machine, real
# ZooKeeper servers included, and writes BENCHMARKS.md (or $BENCH_OUT).
# It starts a standalone server and a 3-node ensemble itself unless
# ZKSIM_ZK_STANDALONE and ZKSIM_ZK_ENSEMBLE are already set, and stops what it
# started by PID. BENCH_QUICK=1 runs every benchmark briefly (for CI);
# BENCH_EXHAUST=1 adds the systematic search's bounds (scripts/bench-exhaust.sh) and
# what each of its reductions saves (a whole space enumerated plainly: ~13 minutes).
# BENCH_SPEED=1 measures one core against main before issue 26's speed work
# (scripts/bench-speed.sh, about 5 minutes); without it the last such section is kept.
#
# Usage: scripts/bench.sh          # everything, into BENCHMARKS.md
#        scripts/bench.sh cores    # only exploration on 1 and 2 cores, to stdout
#                                  # (no ZooKeeper needed; BENCH_QUICK=1 works too)
#        scripts/bench.sh load     # only serve and a real standalone server under
#                                  # load (BenchmarkServeLoad), to stdout
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf 'bench.sh: %s\n' "$*" >&2; }

# cores_section turns BenchmarkExploreCores lines into BENCHMARKS.md's
# section on exploring on every core.
cores_section() {
	printf '\n## Exploring on every core (zksim run -parallel: 1 core against 2, %s)\n\n' "$(go env GOVERSION)"
	printf '| workload | schedules/s, 1 core | schedules/s, 2 cores | ratio | CPU per schedule, 1 core | 2 cores |\n'
	printf '|---|---|---|---|---|---|\n'
	awk '/^BenchmarkExploreCores\// {
		name = $1; sub(/^BenchmarkExploreCores\//, "", name); sub(/-[0-9]+$/, "", name)
		for (i = 3; i < NF; i += 2) v[$(i+1)] = $i
		printf "| %s | %.0f | %.0f | %.2fx | %.0f µs | %.0f µs |\n", name, v["schedules/s-1core"], v["schedules/s-2cores"],
			v["ratio"], v["cpu-us/schedule-1core"], v["cpu-us/schedule-2cores"]
	}' "$1"
	printf '\nOne core: -parallel 1 with GOMAXPROCS=1; two: -parallel 2 with GOMAXPROCS=2; 10,000 seeds each, CPU time is user+system of every thread.\n'
	printf '"standard" is the workload of the table above; "run-default" is what zksim run explores by default (deadlines, a follower on odd seeds).\n'
}

cores=3x
if [ -n "${BENCH_QUICK:-}" ]; then cores=1x; fi
if [ "${1:-}" = cores ]; then
	raw=$(mktemp /tmp/zksim-cores.XXXXXX)
	go test -run - -bench ExploreCores -benchtime "$cores" ./cmd/zksim | tee "$raw" | grep -E '^Benchmark' >&2
	cores_section "$raw"
	rm -f "$raw"
	exit 0
fi
# paths_section turns the BenchmarkLockPaths line into BENCHMARKS.md's
# section on go-zookeeper's own client under the scheduler.
paths_section() {
	printf '\n## go-zookeeper'"'"'s *zk.Conn under the scheduler (harness/gozksim, one core)\n\n'
	printf '| workload | zkapi path, schedules/s | go-zookeeper path, schedules/s | slowdown | steps/schedule, zkapi / go-zookeeper |\n'
	printf '|---|---|---|---|---|\n'
	awk '/^BenchmarkLockPaths/ {
		for (i = 3; i < NF; i += 2) v[$(i+1)] = $i
		printf "| 3 clients x 3 acquisitions, every default fault | %.0f | %.0f | %.1fx | %.0f / %.0f |\n",
			v["zkapi-schedules/s"], v["gozk-schedules/s"], v["slowdown-x"], v["zkapi-steps/schedule"], v["gozk-steps/schedule"]
	}' "$1"
	printf '\nThe same seeds both ways, one schedule of each per op: go-zookeeper'"'"'s Lock on real *zk.Conn clients (gozksim.Lock) against its transcription to zkapi on simulated clients (zoo/gozk); GOMAXPROCS 1.\n'
}

# kept_sections prints the sections of a report that scripts/bench.sh
# does not generate: each "## " heading whose next line is the marker
# below, down to the next heading.
kept_marker='<!-- kept: measured by hand; scripts/bench.sh carries it over -->'
# speed_heading starts the section scripts/bench-speed.sh writes (kept too).
speed_heading='## One core against main before issue 26'
kept_sections() {
	[ -f "$1" ] || return 0
	awk -v marker="$kept_marker" '
		/^## / { keep = 0; head = $0; next_is_marker = 1; next }
		next_is_marker { next_is_marker = 0; if ($0 == marker) { keep = 1; print ""; print head } }
		keep { print }' "$1"
}
out=${BENCH_OUT:-BENCHMARKS.md}
mode=${1:-all}
case $mode in
all | load) ;;
*)
	sed -n '10,14p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
	;;
esac
work=$(mktemp -d /tmp/zksim-bench.XXXXXX)
started=()
cleanup() {
	for d in "${started[@]}"; do scripts/zk.sh stop "$d" || true; done
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

t1=2s t2=3s t3=1x handoff=2s starts=5x load=80000x
if [ -n "${BENCH_QUICK:-}" ]; then t1=100x t2=50x handoff=20x starts=1x load=4000x; fi

if [ "$mode" = load ]; then
	if [ -z "${ZKSIM_ZK_STANDALONE:-}" ]; then
		scripts/install-zookeeper.sh
		scripts/zk.sh start "$work/standalone" 1 >/dev/null
		started=("$work/standalone")
		export ZKSIM_ZK_STANDALONE
		ZKSIM_ZK_STANDALONE=$(cat "$work/standalone/addrs")
	fi
	go test -run - -bench ServeLoad -benchtime "$load" ./cmd/zksim | tee "$work/load.txt" | grep -E '^Benchmark' >&2
	go run ./cmd/zkbench -load -o - < "$work/load.txt"
	exit 0
fi

if [ -z "${ZKSIM_ZK_STANDALONE:-}" ] || [ -z "${ZKSIM_ZK_ENSEMBLE:-}" ]; then
	scripts/install-zookeeper.sh
	scripts/zk.sh start "$work/standalone" 1 >/dev/null
	scripts/zk.sh start "$work/ensemble" 3 >/dev/null
	started=("$work/standalone" "$work/ensemble")
	export ZKSIM_ZK_STANDALONE ZKSIM_ZK_ENSEMBLE
	ZKSIM_ZK_STANDALONE=$(cat "$work/standalone/addrs")
	ZKSIM_ZK_ENSEMBLE="$work/ensemble"
fi

raw="$work/bench.txt"
log "fakezk and the real server"
go test -run - -bench 'Machine|CreateDelete|Get|Exists' -benchtime "$t1" ./fakezk ./internal/conformance | tee -a "$raw" | grep -E '^Benchmark' >&2
log "zksim serve and the real server, each in its own process"
go test -run - -bench ServeStartup -benchtime "$starts" ./cmd/zksim | tee -a "$raw" | grep -E '^Benchmark' >&2
go test -run - -bench ServeCreateDelete -benchtime "$t1" ./cmd/zksim | tee -a "$raw" | grep -E '^Benchmark' >&2
go test -run - -bench ServeLoad -benchtime "$load" ./cmd/zksim | tee -a "$raw" | grep -E '^Benchmark' >&2
log "schedule exploration, one core"
go test -run - -bench StandardWorkload -cpu 1 -benchtime "$t2" ./harness | tee -a "$raw" | grep -E '^Benchmark' >&2
log "go-zookeeper's own client under the scheduler, one core"
go test -run BenchLockPaths -bench LockPaths -benchtime "$t2" ./harness/gozksim | tee "$work/paths.txt" | grep -E '^Benchmark' >&2
log "finding the zoo's bugs"
go test -run - -bench ZooFind -benchtime "$t3" ./harness | tee -a "$raw" | grep -E '^Benchmark' >&2
log "the systematic search"
explore='ExploreZoo|ExploreZooSymmetry|ExploreExhaust'
if [ -n "${BENCH_QUICK:-}" ]; then explore='ExploreZoo$'; fi
go test -run - -bench "$explore" -benchtime 1x -timeout 30m ./harness | tee -a "$raw" | grep -E '^Benchmark' >&2
if [ -n "${BENCH_EXHAUST:-}" ]; then
	log "what each reduction saves: plain enumeration of a whole space (about 13 minutes)"
	go test -run - -bench ExploreReductions -benchtime 1x -timeout 30m ./harness | tee -a "$raw" | grep -E '^Benchmark' >&2
fi
log "the barriers: 100k schedules, the zoo, the systematic search"
barrier_n=100000x barrier_exhaust='BarrierExhaust'
if [ -n "${BENCH_QUICK:-}" ]; then barrier_n=2000x barrier_exhaust='BarrierExhaust/double/2x2'; fi
go test -run - -bench BarrierSchedules -benchtime "$barrier_n" ./harness | tee -a "$raw" | grep -E '^Benchmark' >&2
go test -run - -bench "BarrierZooFind|BarrierExploreZoo|$barrier_exhaust" -benchtime 1x -timeout 30m ./harness | tee -a "$raw" | grep -E '^Benchmark' >&2
log "porcupine"
go test -run - -bench 'CheckLocks|Porcupine' -benchtime "$t1" ./linearize | tee -a "$raw" | grep -E '^Benchmark' >&2
log "lock handoff on the real servers"
go test -run - -bench Handoff -benchtime "$handoff" ./lock | tee -a "$raw" | grep -E '^Benchmark' >&2
log "exploration on 1 and 2 cores"
go test -run - -bench ExploreCores -benchtime "$cores" ./cmd/zksim | tee "$work/cores.txt" | grep -E '^Benchmark' >&2
log "herd"
herd_waiters=10,100,1000
if [ -n "${BENCH_QUICK:-}" ]; then herd_waiters=10,100; fi
go run ./cmd/zksim herd -waiters "$herd_waiters" > "$work/herd.txt"
# Sections measured by hand (a heading followed by the kept marker) are
# carried over from the report being replaced, after the generated ones.
kept_sections BENCHMARKS.md > "$work/kept.md"
if [ -n "${BENCH_SPEED:-}" ]; then # measured again below: drop the old one
	awk -v head="$speed_heading" '/^## / { skip = index($0, head) == 1 } !skip' "$work/kept.md" > "$work/kept2.md"
	mv "$work/kept2.md" "$work/kept.md"
fi
go run ./cmd/zkbench -herd "$work/herd.txt" -o "$out" < "$raw"
cores_section "$work/cores.txt" >> "$out"
paths_section "$work/paths.txt" >> "$out"
cat "$work/kept.md" >> "$out"
if [ -n "${BENCH_SPEED:-}" ]; then
	log "one core against main before the speed work (about 5 minutes)"
	scripts/bench-speed.sh >> "$out"
fi
if [ -n "${BENCH_EXHAUST:-}" ]; then
	log "the systematic search's bounds in a minute and in ten (about 20 minutes)"
	scripts/bench-exhaust.sh >> "$out"
fi
# BENCH_OUT=/dev/null (the test command) renders the report only to see
# that it can: then there is no file to name.
if [ -f "$out" ]; then log "wrote $out"; fi
