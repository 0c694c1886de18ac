#!/usr/bin/env bash
# The cost model of a standard schedule: cachegrind's counts of
# instructions, instruction-cache misses, data-cache misses and branch
# mispredictions, folded into modelled cycles:
#
#   cycles = instructions / 3 + 15 x (I1 misses + D1 misses + mispredictions)
#
# Instructions alone stopped explaining CPU time once a step ran through
# more code than the 32 KB instruction cache holds; this model gave the
# CPU ratios scripts/bench-speed.sh measured within about 5% (BENCHMARKS.md,
# "What bounds a step now"), and unlike CPU time it does not move with the
# machine's load. A schedule is the difference of 900 and 100 schedules
# over 800 (start-up left out); the search is its whole run over the
# states it reaches in all (87,282 now).
#
# Usage: scripts/cost-model.sh BINARY [walk|pct|search]   (default walk)
# BINARY is a zksim binary (go build -o /tmp/zksim ./cmd/zksim). Needs
# valgrind; takes about a minute.
set -euo pipefail
if [[ $# -lt 1 || $# -gt 2 ]]; then
	echo "usage: scripts/cost-model.sh BINARY [walk|pct|search]" >&2
	exit 2
fi
bin=$1
what=${2:-walk}
command -v valgrind > /dev/null || { echo "cost-model.sh: valgrind is not installed" >&2; exit 1; }
work=$(mktemp -d /tmp/zksim-cost.XXXXXX)
trap 'rm -rf "$work"' EXIT

# counts runs bin under cachegrind with the given run flags and prints the
# program totals: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim.
#
# GODEBUG=cpu.rdtscp=off: valgrind 3.19 does not know RDTSCP, which Go's
# runtime uses, where the CPU has it, to read the time when a lock is
# contended; a run that met one died there, and its counts were cut short.
counts() {
	if ! GODEBUG=cpu.rdtscp=off GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes \
		--cachegrind-out-file="$work/out" "$bin" run -parallel 1 -progress 0 "$@" > "$work/run" 2>&1; then
		echo "cost-model.sh: the run under valgrind failed:" >&2
		grep -v '^==' "$work/run" | tail -5 >&2
		exit 1
	fi
	cg_annotate "$work/out" | awk '/PROGRAM TOTALS/ { gsub(",", ""); gsub(/\([^)]*\)/, ""); NF--; NF--; print }'
}

# report prints the counts per unit: $1 the totals (or their difference),
# $2 the units they are over, $3 the unit's name.
report() {
	awk -v c="$1" -v n="$2" -v unit="$3" 'BEGIN {
		split(c, x, " ")
		ir = x[1] / n; i1 = x[2] / n; d1 = (x[5] + x[8]) / n; bm = (x[11] + x[13]) / n
		printf "per %s: instructions %.0f, I1 misses %.0f, D1 misses %.0f, mispredictions %.0f; model %.0f cycles\n",
			unit, ir, i1, d1, bm, ir / 3 + 15 * (i1 + d1 + bm) }'
}

case $what in
walk | pct)
	flags=(-followers 0 -deadline-ticks 0)
	[[ $what == pct ]] && flags+=(-strategy pct)
	a=$(counts "${flags[@]}" -schedules 100)
	b=$(counts "${flags[@]}" -schedules 900)
	diff=$(awk -v a="$a" -v b="$b" 'BEGIN { n = split(a, x, " "); split(b, y, " "); for (i = 1; i <= n; i++) printf "%.0f ", y[i] - x[i] }')
	report "$diff" 800 "$what schedule"
	;;
search)
	c=$(counts -strategy exhaustive -clients 3 -acquisitions 1 -deviations 1)
	# the states it reached, from its summary ("(87282 states in all)")
	n=$(grep -o '[0-9]* states in all' "$work/run" | cut -d' ' -f1)
	report "$c" "$n" "search state"
	;;
*)
	echo "cost-model.sh: unknown workload $what (walk, pct or search)" >&2
	exit 2
	;;
esac
