#!/usr/bin/env bash
# Regenerates cmd/zksim/default.pgo, the CPU profile that `go build` uses
# to optimise the zksim binary (profile-guided optimisation: hot calls
# inlined and devirtualised; about 5% fewer instructions a schedule when
# it was first made). The profile is of the work zksim spends its time on:
# the standard workload under the random walk and PCT, and the
# systematic search of each good lock. Only speed depends on it, never a
# trace or a verdict; a stale profile just helps less. Run it after the
# simulator's hot paths change, on an otherwise idle machine (about 2
# minutes).
#
# Usage: scripts/pgo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/zksim-pgo.XXXXXX)
trap 'rm -rf "$work"' EXIT

GOMAXPROCS=1 go test -run - -bench 'BenchmarkStandardWorkload$' -benchtime 10000x \
	-cpuprofile "$work/standard.prof" -o "$work/harness.test" ./harness > /dev/null
GOMAXPROCS=1 go test -run - -bench 'BenchmarkExploreExhaust$' -benchtime 1x \
	-cpuprofile "$work/exhaust.prof" -o "$work/harness.test" ./harness > /dev/null
go tool pprof -proto "$work/standard.prof" "$work/exhaust.prof" > cmd/zksim/default.pgo
printf 'pgo.sh: wrote cmd/zksim/default.pgo (%s bytes)\n' "$(wc -c < cmd/zksim/default.pgo)" >&2
