#!/usr/bin/env bash
# Installs what the real-server and interop tests need when missing:
# Debian's zookeeper package (with Java, and zkCli.sh), python3-kazoo
# (the kazoo client, for Debian's /usr/bin/python3), and what kazoo's own
# test suite needs to run (internal/kazoosuite): pytest, pytest-timeout,
# mock, objgraph;
# and Chromium, in which the report package's test opens a failure report.
# As root, or through sudo. Used by scripts/test.sh and scripts/bench.sh.
set -euo pipefail
need=()
if ! [ -f /usr/share/java/zookeeper.jar ] || ! command -v java >/dev/null; then
	need+=(zookeeper)
fi
if ! [ -x /usr/bin/python3 ] || ! /usr/bin/python3 -c 'import kazoo' 2>/dev/null; then
	need+=(python3-kazoo)
fi
for m in pytest pytest_timeout mock objgraph; do
	if ! [ -x /usr/bin/python3 ] || ! /usr/bin/python3 -c "import $m" 2>/dev/null; then
		need+=("python3-${m//_/-}")
	fi
done
if ! command -v chromium >/dev/null; then
	need+=(chromium)
fi
if [ ${#need[@]} -eq 0 ]; then
	exit 0
fi
as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
		echo "install-zookeeper.sh: need root to run: $*" >&2; return 1
	fi
}
echo "install-zookeeper.sh: installing Debian's ${need[*]}" >&2
as_root apt-get update -qq
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
