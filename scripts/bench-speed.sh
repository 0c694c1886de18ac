#!/usr/bin/env bash
# The side-by-side speed benchmark: builds zksim at a baseline commit
# (default 9821b6b, main before issue 26's speed work) and at the work
# tree, then runs the two binaries alternately (old, new, old, new, ...)
# on one core (GOMAXPROCS=1, -parallel 1, and pinned to one CPU with
# taskset when it is there), so that both see the same machine load, and
# prints a Markdown section: the median rate of each, their ratio and
# the median of the rounds' ratios, for the random walk and PCT on the
# standard workload
# (5 clients x 3 acquisitions of the lock, every default fault, no
# deadlines, no followers) and for the systematic search's states/s.
# bench.sh appends it to BENCHMARKS.md when BENCH_SPEED=1 and otherwise
# carries the last one over.
#
# Usage: scripts/bench-speed.sh [BASE]   (ROUNDS=5 SCHEDULES=5000 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-9821b6b}
rounds=${ROUNDS:-5}
schedules=${SCHEDULES:-5000}
work=$(mktemp -d /tmp/zksim-speed.XXXXXX)
trap 'rm -rf "$work"' EXIT
log() { printf 'bench-speed.sh: %s\n' "$*" >&2; }

log "building $base and the work tree"
mkdir "$work/base"
git archive "$base" | tar -x -C "$work/base"
(cd "$work/base" && go build -o "$work/old" ./cmd/zksim)
go build -o "$work/new" ./cmd/zksim

# rate prints what one run does per second of the CPU time it used (user
# and system, from /usr/bin/time): schedules/s, or for the systematic
# search states/s. CPU time rather than wall time: the machine may be
# shared, and a process waiting for a core is not slower. The run is
# pinned to one CPU: on a shared 2-core virtual machine, unpinned runs
# were now and then up to 30% slower (most likely moved between the CPUs,
# their caches left behind), and the medians followed those runs; pinned
# runs never were.
pin=()
if command -v taskset > /dev/null; then
	pin=(taskset -c "$(($(nproc) - 1))")
fi
rate() {
	local bin=$1
	shift
	/usr/bin/time -f 'cpu %U %S' -o "$work/time" "${pin[@]}" env GOMAXPROCS=1 "$bin" run -parallel 1 -progress 0 "$@" > "$work/out" 2>&1
	awk -v time="$work/time" '
		/^  schedules +[0-9]+$/ { n = $2 }
		/states in all/ { for (i = 1; i <= NF; i++) if ($i == "states") { v = $(i-1); sub(/^\(/, "", v); n = v } }
		END { while ((getline line < time) > 0) if (line ~ /^cpu /) { split(line, t, " "); cpu = t[2] + t[3] }
		      printf "%.0f\n", n / cpu }' "$work/out"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

standard="-followers 0 -deadline-ticks 0 -schedules $schedules"
workloads=(
	"random walk, schedules/s|$standard"
	"PCT, schedules/s|-strategy pct $standard"
	"systematic search, states/s|-strategy exhaustive -clients 3 -acquisitions 1 -deviations 1"
)
for i in "${!workloads[@]}"; do
	args=${workloads[$i]#*|}
	for r in $(seq "$rounds"); do
		for b in old new; do
			# shellcheck disable=SC2086 # args are flags, split on purpose
			rate "$work/$b" $args >> "$work/$i.$b"
		done
		log "${workloads[$i]%%|*} round $r: old $(tail -1 "$work/$i.old"), new $(tail -1 "$work/$i.new")"
	done
done

echo
echo "## One core against main before issue 26 (scripts/bench-speed.sh, $(go env GOVERSION))"
echo '<!-- kept: measured by hand; scripts/bench.sh carries it over -->'
echo
echo "| workload | $base | this tree | ratio | median of the rounds' ratios |"
echo "|---|---|---|---|---|"
for i in "${!workloads[@]}"; do
	old=$(median < "$work/$i.old")
	new=$(median < "$work/$i.new")
	paired=$(paste "$work/$i.old" "$work/$i.new" | awk '{ printf "%.4f\n", $2 / $1 }' | median)
	awk -v w="${workloads[$i]%%|*}" -v o="$old" -v n="$new" -v p="$paired" \
		'BEGIN { printf "| %s | %.0f | %.0f | %.2fx | %.2fx |\n", w, o, n, n / o, p }'
done
echo
echo "The baseline's binary and this tree's alternate, $rounds rounds of each, the median shown; GOMAXPROCS=1 and -parallel 1,${pin[*]:+ pinned to one CPU (${pin[*]}),}"
echo "a rate is per second of the CPU time the process used (user and system), so that a shared machine's load does not count."
echo "Random walk and PCT: \`zksim run $standard\` (the standard workload: 5 clients x 3 acquisitions of the lock, every default fault)."
echo "Systematic search: \`zksim run -strategy exhaustive -clients 3 -acquisitions 1 -deviations 1\`, the pass exhausted."
