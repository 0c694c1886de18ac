#!/usr/bin/env bash
# The systematic search's bounds benchmark: for each good lock, how far the
# exhaustive strategy gets on one core (-parallel 1) within one minute and
# within ten, at 3 clients x 1 acquisition with one fault of each kind,
# deepening on deviations. Writes a Markdown section to stdout; bench.sh
# appends it to BENCHMARKS.md when BENCH_EXHAUST=1 (it takes about 10
# minutes a lock, two locks at a time).
#
# Usage: scripts/bench-exhaust.sh [limit]   (default 10m)
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${1:-10m}
work=$(mktemp -d /tmp/zksim-exhaust.XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/zksim" ./cmd/zksim
recipes=(lock rwlock lock/reentrant lock/multi)
# Two searches at a time, each on one core.
pids=()
for r in "${recipes[@]}"; do
	f="$work/$(echo "$r" | tr / -).txt"
	"$work/zksim" run -strategy exhaustive -recipe "$r" -clients 3 -acquisitions 1 -deviations 9 \
		-parallel 1 -time "$limit" -out "$work/failures" > "$f" 2>&1 &
	pids+=($!)
	if [ ${#pids[@]} -eq 2 ]; then wait "${pids[@]}"; pids=(); fi
done
[ ${#pids[@]} -eq 0 ] || wait "${pids[@]}"

echo
echo "## Systematic search: the bounds exhausted in a minute and in ten (one core each)"
echo
echo "3 clients x 1 acquisition, one fault of each kind (lose-request, lose-reply, disconnect, crash, pause, reap, abandon),"
echo "acquire deadlines of 12 ticks on half the acquisitions, deepening on deviations from the default schedule;"
echo "\`zksim run -strategy exhaustive -clients 3 -deviations 9 -parallel 1 -time $limit\`, two locks at a time on this machine."
echo
echo "| lock | deviations exhausted in 60 s | deviations exhausted in $limit | states of that pass | states/s | counterexample |"
echo "|---|---|---|---|---|---|"
for r in "${recipes[@]}"; do
	f="$work/$(echo "$r" | tr / -).txt"
	awk -v lock="$r" '
	function secs(d,   v) {
		if (d ~ /ms$/) { sub(/ms$/, "", d); return d / 1000 }
		v = 0
		if (d ~ /h/) { split(d, a, "h"); v += a[1] * 3600; d = a[2] }
		if (d ~ /m/) { split(d, a, "m"); v += a[1] * 60; d = a[2] }
		sub(/s$/, "", d); return v + d
	}
	/^  pass deviations <= [0-9]+ exhausted/ {
		k = $4; t = secs($NF); states = $6
		if (t <= 60) one = k
		all = k; last = states
	}
	/states\/s/ { for (i = 1; i <= NF; i++) if ($i == "states/s,") rate = $(i-1) }
	/^counterexample/ { ce = "yes: see the run" }
	END {
		if (one == "") one = "-"
		if (all == "") all = "-"
		if (ce == "") ce = "none"
		printf "| %s | %s | %s | %s | %s | %s |\n", lock, one, all, last, rate, ce
	}' "$f"
done
