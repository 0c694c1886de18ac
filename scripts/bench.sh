#!/usr/bin/env bash
# The benchmark command: runs zksim's benchmarks once on this machine, real
# ZooKeeper servers included, and writes BENCHMARKS.md (or $BENCH_OUT).
# It starts a standalone server and a 3-node ensemble itself unless
# ZKSIM_ZK_STANDALONE and ZKSIM_ZK_ENSEMBLE are already set, and stops what it
# started by PID. BENCH_QUICK=1 runs every benchmark briefly (for CI).
#
# Usage: scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf 'bench.sh: %s\n' "$*" >&2; }
out=${BENCH_OUT:-BENCHMARKS.md}
work=$(mktemp -d /tmp/zksim-bench.XXXXXX)
started=()
cleanup() {
	for d in "${started[@]}"; do scripts/zk.sh stop "$d" || true; done
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

if [ -z "${ZKSIM_ZK_STANDALONE:-}" ] || [ -z "${ZKSIM_ZK_ENSEMBLE:-}" ]; then
	scripts/install-zookeeper.sh
	scripts/zk.sh start "$work/standalone" 1 >/dev/null
	scripts/zk.sh start "$work/ensemble" 3 >/dev/null
	started=("$work/standalone" "$work/ensemble")
	export ZKSIM_ZK_STANDALONE ZKSIM_ZK_ENSEMBLE
	ZKSIM_ZK_STANDALONE=$(cat "$work/standalone/addrs")
	ZKSIM_ZK_ENSEMBLE="$work/ensemble"
fi

t1=2s t2=3s t3=1x handoff=2s starts=5x
if [ -n "${BENCH_QUICK:-}" ]; then t1=100x t2=50x handoff=20x starts=1x; fi

raw="$work/bench.txt"
log "fakezk and the real server"
go test -run - -bench 'Machine|CreateDelete|Get|Exists' -benchtime "$t1" ./fakezk ./internal/conformance | tee -a "$raw" | grep -E '^Benchmark' >&2
log "zksim serve and the real server, each in its own process"
go test -run - -bench ServeStartup -benchtime "$starts" ./cmd/zksim | tee -a "$raw" | grep -E '^Benchmark' >&2
go test -run - -bench ServeCreateDelete -benchtime "$t1" ./cmd/zksim | tee -a "$raw" | grep -E '^Benchmark' >&2
log "schedule exploration, one core"
go test -run - -bench StandardWorkload -cpu 1 -benchtime "$t2" ./sim | tee -a "$raw" | grep -E '^Benchmark' >&2
log "finding the zoo's bugs"
go test -run - -bench ZooFind -benchtime "$t3" ./sim | tee -a "$raw" | grep -E '^Benchmark' >&2
log "porcupine"
go test -run - -bench 'CheckLocks|Porcupine' -benchtime "$t1" ./linearize | tee -a "$raw" | grep -E '^Benchmark' >&2
log "lock handoff on the real servers"
go test -run - -bench Handoff -benchtime "$handoff" ./lock | tee -a "$raw" | grep -E '^Benchmark' >&2
log "herd"
herd_waiters=10,100,1000
if [ -n "${BENCH_QUICK:-}" ]; then herd_waiters=10,100; fi
go run ./cmd/zksim herd -waiters "$herd_waiters" > "$work/herd.txt"
go run ./cmd/zkbench -herd "$work/herd.txt" -o "$out" < "$raw"
log "wrote $out"
