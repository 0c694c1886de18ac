#!/usr/bin/env bash
# check-commits.sh checks the messages of the commits from BASE to HEAD
# with scripts/commit-msg: each subject at most 72 characters, and a blank
# line before any body. scripts/test.sh runs it with the recorded base.
#
# Usage: scripts/check-commits.sh [BASE]
#   BASE defaults to the recorded base below; a shallow clone that lacks
#   it checks every commit it has. Exit 0 if every message is fine, 1
#   listing those that are not, 2 if a given BASE is not in this clone or
#   not an ancestor of HEAD.
set -euo pipefail
cd "$(dirname "$0")/.."

# The recorded base: the rule starts after this commit (issue 13). Of the
# 302 commits up to it, 117 have longer subjects; history is not
# rewritten, so they are not checked.
recorded_base=da4a72562be377965c27b6af49358ae5fca1da24

base=${1:-$recorded_base}
range="$base..HEAD"
since="since ${base:0:12}"
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
	# A shallow clone (CI's may be one) lacks the recorded base; every
	# commit it has is newer, so check them all. An explicit BASE must
	# be there.
	if [ $# -eq 0 ] && [ "$(git rev-parse --is-shallow-repository)" = true ]; then
		echo "check-commits: shallow clone without the recorded base: checking the commits it has" >&2
		range=HEAD
		since="in this shallow clone"
	else
		echo "check-commits: base $base is not in this clone (shallow? git fetch --unshallow)" >&2
		exit 2
	fi
elif ! git merge-base --is-ancestor "$base" HEAD; then
	echo "check-commits: base $base is not an ancestor of HEAD" >&2
	exit 2
fi

msg=$(mktemp)
trap 'rm -f "$msg"' EXIT
bad=0
checked=0
for c in $(git rev-list --reverse $range); do
	git log -1 --format=%B "$c" >"$msg"
	checked=$((checked + 1))
	if ! why=$(scripts/commit-msg --verbatim "$msg" 2>&1); then
		printf '%s %s\n' "$(git rev-parse --short "$c")" "$why"
		bad=$((bad + 1))
	fi
done
if [ $bad -gt 0 ]; then
	echo "check-commits: $bad of $checked commits $since break the message rule (docs/testing.md)" >&2
	exit 1
fi
echo "check-commits: $checked commits $since: ok" >&2
