#!/usr/bin/env bash
# Installs Debian's zookeeper package (and Java) when missing: as root, or
# through sudo. Used by scripts/test.sh and scripts/bench.sh.
set -euo pipefail
if [ -f /usr/share/java/zookeeper.jar ] && command -v java >/dev/null; then
	exit 0
fi
as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
		echo "install-zookeeper.sh: need root to run: $*" >&2; return 1
	fi
}
echo "install-zookeeper.sh: installing Debian's zookeeper package" >&2
as_root apt-get update -qq
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zookeeper >/dev/null
