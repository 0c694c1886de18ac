#!/usr/bin/env bash
# zk.sh runs real ZooKeeper servers (Debian's zookeeper package, 3.8) on
# loopback for zksim's differential and fault tests. Linux only (/proc).
#
#   zk.sh start DIR N     start N servers (1: standalone; >=2: an ensemble)
#                         with state under DIR; prints the address list last
#   zk.sh stop DIR        stop every server of DIR by its recorded PID
#   zk.sh leader DIR      print the 1-based index of the leader (or standalone)
#   zk.sh kill DIR I      SIGKILL server I by its recorded PID
#   zk.sh restart DIR I   start server I again with its config; wait until it serves
#   zk.sh status DIR      print "index pid addr mode" for each server
#
# State layout: DIR/addrs (host:port,...), DIR/script (this script's path),
# DIR/serverI/{zoo.cfg,log4j.properties,data/,log,logstart,pid,addr} (and
# jaas.conf with ZK_JAAS). A log
# rolls over at 64 MB into log.1, so a server that logs without end (as
# 3.8.0 can, after a bad request) cannot fill the disk.
#
# Processes are only ever found through DIR/serverI/pid, and a PID is trusted
# only while /proc/PID/cmdline still names DIR/serverI/zoo.cfg, so a recycled
# PID is never signalled. Environment: ZK_JAVA (java binary), ZK_JAVA_DIR
# (where the jars are), ZK_READY_TIMEOUT (seconds, default 30), ZK_JVMFLAGS
# (extra JVM options for start and restart, for example
# -Dzookeeper.extendedTypesEnabled=true or a superDigest), ZK_CFG (extra
# zoo.cfg lines, newline-separated, for example reconfigEnabled=true), ZK_JAAS
# (a JAAS file with a Server section, as ZooKeeper reads it through
# -Djava.security.auth.login.config: the servers then answer SASL and take
# sasl ACLs, authProvider.1 being SASLAuthenticationProvider; unset, as by
# default, they have no SASL server).
set -euo pipefail

JAVA=${ZK_JAVA:-/usr/bin/java}
JAR_DIR=${ZK_JAVA_DIR:-/usr/share/java}
READY_TIMEOUT=${ZK_READY_TIMEOUT:-30}
MARKER=.zksim-zk
MAIN=org.apache.zookeeper.server.quorum.QuorumPeerMain

die() {
	echo "zk.sh: $*" >&2
	exit 1
}

usage() {
	sed -n '5,11p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

now_ms() { date +%s%3N; }

# free_ports N prints N distinct TCP ports that nothing listens on now,
# chosen below the kernel's ephemeral range: a port from that range, once
# its server is killed, can be handed to any outgoing connection, and the
# server could not bind it again on restart. Each is checked by binding it
# (all held open until every one is chosen); without python3 it scans
# /proc/net/tcp{,6}. Another process may still take a port before java
# binds it: start detects that through the bind error in the log and the
# listener check.
free_ports() {
	local n=$1
	if command -v python3 >/dev/null 2>&1; then
		python3 - "$n" <<'EOF'
import random, socket, sys
low = 32768
try:
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
except (OSError, ValueError, IndexError):
    pass
candidates = list(range(10000, low)) if low > 11000 else []
random.shuffle(candidates)
socks = []
for port in candidates + [0] * int(sys.argv[1]):
    if len(socks) == int(sys.argv[1]):
        break
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        s.close()
        continue
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks:
    s.close()
EOF
		return
	fi
	local used ports=() p
	used=$(awk 'NR>1 {split($2, a, ":"); print strtonum("0x" a[2])}' /proc/net/tcp /proc/net/tcp6 2>/dev/null | sort -u)
	while ((${#ports[@]} < n)); do
		p=$((10000 + RANDOM % 20000))
		if ! grep -qx "$p" <<<"$used" && [[ " ${ports[*]-} " != *" $p "* ]]; then
			ports+=("$p")
		fi
	done
	echo "${ports[*]}"
}

# srvr ADDR prints the output of the srvr four-letter command, or nothing.
srvr() {
	local host=${1%:*} port=${1##*:}
	# shellcheck disable=SC2016 # expanded by the inner bash
	timeout 2 bash -c '
		exec 3<>"/dev/tcp/$0/$1" || exit 1
		printf srvr >&3
		cat <&3' "$host" "$port" 2>/dev/null || true
}

# mode ADDR prints the server's Mode (standalone, leader, follower, observer),
# or nothing while it does not serve.
mode() {
	srvr "$1" | sed -n 's/^Mode: *//p' | tr -d '\r'
}

count() {
	[[ -f $DIR/addrs ]] || die "$DIR is not a zk.sh state directory (no addrs file)"
	tr ',' '\n' <"$DIR/addrs" | grep -c .
}

# pid_of I prints server I's PID if that process is alive and is the server
# started for DIR/serverI; nothing otherwise. A zombie counts as gone.
pid_of() {
	local sdir=$DIR/server$1 pid state
	[[ -f $sdir/pid ]] || return 0
	pid=$(<"$sdir/pid")
	[[ $pid =~ ^[0-9]+$ ]] || return 0
	state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 0
	[[ $state != Z ]] || return 0
	tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qxF "$sdir/zoo.cfg" || return 0
	echo "$pid"
}

# listens PID PORT succeeds if process PID owns a listening socket on PORT.
listens() {
	local pid=$1 port hex inode
	port=$2
	hex=$(printf '%04X' "$port")
	while read -r inode; do
		if find "/proc/$pid/fd" -lname "socket:\[$inode\]" 2>/dev/null | grep -q .; then
			return 0
		fi
	done < <(awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p {print $10}' /proc/net/tcp /proc/net/tcp6 2>/dev/null)
	return 1
}

write_config() {
	local i=$1 n=$2 cport=$3 sdir=$DIR/server$1
	mkdir -p "$sdir/data"
	{
		echo "tickTime=500"
		echo "initLimit=10"
		echo "syncLimit=5"
		echo "dataDir=$sdir/data"
		echo "clientPort=$cport"
		echo "clientPortAddress=127.0.0.1"
		echo "admin.enableServer=false"
		echo "4lw.commands.whitelist=*"
		echo "forceSync=no"
		echo "maxClientCnxns=0"
		[[ -z ${ZK_CFG:-} ]] || printf '%s\n' "$ZK_CFG"
		[[ -z ${ZK_JAAS:-} ]] || echo "authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider"
		if ((n >= 2)); then
			echo "standaloneEnabled=false"
			cat "$DIR/servers"
		fi
	} >"$sdir/zoo.cfg"
	((n < 2)) || echo "$i" >"$sdir/data/myid"
	# A copy, so that restart gives the server the same users.
	[[ -z ${ZK_JAAS:-} ]] || cp "$ZK_JAAS" "$sdir/jaas.conf"
	cat >"$sdir/log4j.properties" <<EOF
log4j.rootLogger=INFO, FILE
log4j.appender.FILE=org.apache.log4j.RollingFileAppender
log4j.appender.FILE.File=$sdir/log
log4j.appender.FILE.Append=true
log4j.appender.FILE.MaxFileSize=64MB
log4j.appender.FILE.MaxBackupIndex=1
log4j.appender.FILE.layout=org.apache.log4j.PatternLayout
log4j.appender.FILE.layout.ConversionPattern=%d{ISO8601} %-5p [%t:%C{1}@%L] - %m%n
EOF
	echo "127.0.0.1:$cport" >"$sdir/addr"
}

# launch I starts server I's JVM in the background and records its PID. The
# JVM's own PID is $!: nohup and java replace each other by exec. Its standard
# streams go to the log so that a caller reading this script's output (a Go
# test via os/exec) does not wait for the JVM to exit.
launch() {
	local sdir=$DIR/server$1
	local cp=$JAR_DIR/zookeeper.jar:$JAR_DIR/slf4j-log4j12.jar:$JAR_DIR/log4j-1.2.jar
	local -a extra=()
	# Word splitting is the point: ZK_JVMFLAGS holds options without spaces.
	# shellcheck disable=SC2206
	[[ -z ${ZK_JVMFLAGS:-} ]] || extra=($ZK_JVMFLAGS)
	[[ ! -f $sdir/jaas.conf ]] || extra+=("-Djava.security.auth.login.config=$sdir/jaas.conf")
	touch "$sdir/log"
	stat -c %s "$sdir/log" >"$sdir/logstart"
	nohup "$JAVA" -Xms32m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
		-cp "$cp" -Dlog4j.configuration="file:$sdir/log4j.properties" \
		-Dzookeeper.jmx.log4j.disable=true "${extra[@]}" \
		"$MAIN" "$sdir/zoo.cfg" </dev/null >>"$sdir/log" 2>&1 &
	echo $! >"$sdir/pid"
	await_exec "$1" $!
}

# await_exec I PID waits until the child PID has become server I's JVM:
# between fork and exec its cmdline is still this script's, and pid_of
# would take it for a server that has exited (seen under load in CI). It
# returns early if the child dies; wait_ready then reports that.
await_exec() {
	local i=$1 pid=$2 t
	for ((t = 0; t < 500; t++)); do
		[[ -z $(pid_of "$i") ]] || return 0
		[[ -d /proc/$pid && $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) != Z ]] || return 0
		sleep 0.01
	done
}

log_tail() {
	echo "--- last lines of $DIR/server$1/log:" >&2
	tail -n 25 "$DIR/server$1/log" >&2 || true
}

# wait_ready I... waits until each listed server's own process listens on its
# client port and answers srvr with a Mode line; fails with the log tail
# otherwise.
wait_ready() {
	local deadline=$(($(now_ms) + READY_TIMEOUT * 1000)) pending=("$@") rest i addr pid
	while ((${#pending[@]} > 0)); do
		rest=()
		for i in "${pending[@]}"; do
			addr=$(<"$DIR/server$i/addr")
			pid=$(pid_of "$i")
			if tail -c +$(($(<"$DIR/server$i/logstart") + 1)) "$DIR/server$i/log" | grep -q "Address already in use"; then
				log_tail "$i"
				die "server $i: a port in its config is taken by another process"
			fi
			if [[ -z $pid ]]; then
				log_tail "$i"
				die "server $i (pid $(<"$DIR/server$i/pid")) exited before serving on $addr"
			fi
			# Ask srvr only once the JVM itself holds the listening socket, so
			# that a foreign listener on the port is never taken for ours.
			if ! listens "$pid" "${addr##*:}" || [[ -z $(mode "$addr") ]]; then
				rest+=("$i")
			fi
		done
		pending=("${rest[@]+"${rest[@]}"}")
		((${#pending[@]} > 0)) || break
		if (($(now_ms) > deadline)); then
			for i in "${pending[@]}"; do log_tail "$i"; done
			die "servers ${pending[*]} not serving after ${READY_TIMEOUT}s"
		fi
		sleep 0.05
	done
}

stop_one() {
	local i=$1 pid t
	pid=$(pid_of "$i")
	[[ -n $pid ]] || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for ((t = 0; t < 50; t++)); do
		[[ -n $(pid_of "$i") ]] || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	for ((t = 0; t < 50; t++)); do
		[[ -n $(pid_of "$i") ]] || return 0
		sleep 0.1
	done
	die "server $i (pid $pid) survived SIGKILL"
}

check_index() {
	local n
	n=$(count)
	if ! [[ $1 =~ ^[0-9]+$ ]] || (($1 < 1 || $1 > n)); then
		die "server index $1 out of range 1..$n"
	fi
}

cmd_start() {
	local n=$1 i ports addrs=() t0
	if ! [[ $n =~ ^[0-9]+$ ]] || ((n < 1)); then
		die "N must be a positive integer, got $n"
	fi
	command -v "$JAVA" >/dev/null || die "java not found at $JAVA"
	[[ -f $JAR_DIR/zookeeper.jar ]] || die "no $JAR_DIR/zookeeper.jar (apt-get install zookeeper)"
	[[ -z ${ZK_JAAS:-} || -r $ZK_JAAS ]] || die "ZK_JAAS: cannot read $ZK_JAAS"
	if [[ -e $DIR && -n $(ls -A "$DIR") ]]; then
		[[ -f $DIR/$MARKER ]] || die "$DIR exists, is not empty and was not made by zk.sh"
		if [[ -f $DIR/addrs ]]; then
			for ((i = 1; i <= $(count); i++)); do
				[[ -z $(pid_of "$i") ]] || die "$DIR still has running servers: zk.sh stop $DIR"
			done
		fi
		rm -rf "$DIR"/server* "$DIR/addrs" "$DIR/servers"
	fi
	mkdir -p "$DIR"
	touch "$DIR/$MARKER"
	echo "$SCRIPT" >"$DIR/script"
	read -r -a ports <<<"$(free_ports $((3 * n)))"
	: >"$DIR/servers"
	for ((i = 1; i <= n; i++)); do
		echo "server.$i=127.0.0.1:${ports[3 * i - 2]}:${ports[3 * i - 1]}" >>"$DIR/servers"
	done
	for ((i = 1; i <= n; i++)); do
		write_config "$i" "$n" "${ports[3 * i - 3]}"
		addrs+=("127.0.0.1:${ports[3 * i - 3]}")
	done
	(
		IFS=,
		echo "${addrs[*]}"
	) >"$DIR/addrs"
	t0=$(now_ms)
	trap 'cmd_stop >/dev/null 2>&1 || true' EXIT
	for ((i = 1; i <= n; i++)); do launch "$i"; done
	wait_ready $(seq 1 "$n")
	trap - EXIT
	echo "zk.sh: $n server(s) serving after $(($(now_ms) - t0)) ms" >&2
	cat "$DIR/addrs"
}

cmd_stop() {
	local i
	[[ -f $DIR/addrs ]] || return 0
	for ((i = 1; i <= $(count); i++)); do stop_one "$i"; done
}

cmd_leader() {
	local i m
	for ((i = 1; i <= $(count); i++)); do
		m=$(mode "$(<"$DIR/server$i/addr")")
		if [[ $m == leader || $m == standalone ]]; then
			echo "$i"
			return 0
		fi
	done
	die "no server of $DIR reports Mode: leader or standalone"
}

cmd_kill() {
	local i=$1 pid t
	check_index "$i"
	pid=$(pid_of "$i")
	[[ -n $pid ]] || die "server $i is not running"
	kill -KILL "$pid"
	for ((t = 0; t < 100; t++)); do
		[[ -n $(pid_of "$i") ]] || return 0
		sleep 0.05
	done
	die "server $i (pid $pid) still alive after SIGKILL"
}

cmd_restart() {
	local i=$1 t0
	check_index "$i"
	[[ -z $(pid_of "$i") ]] || die "server $i is already running (pid $(pid_of "$i"))"
	t0=$(now_ms)
	RESTARTING=$i
	trap 'stop_one "$RESTARTING" >/dev/null 2>&1 || true' EXIT
	launch "$i"
	wait_ready "$i"
	trap - EXIT
	echo "zk.sh: server $i serving after $(($(now_ms) - t0)) ms" >&2
}

cmd_status() {
	local i pid addr m
	for ((i = 1; i <= $(count); i++)); do
		addr=$(<"$DIR/server$i/addr")
		pid=$(pid_of "$i")
		m=-
		if [[ -n $pid ]]; then
			m=$(mode "$addr")
			m=${m:-not-serving}
		else
			pid=-
		fi
		echo "$i $pid $addr $m"
	done
}

SCRIPT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
(($# >= 2)) || usage
CMD=$1
DIR=$2
[[ $DIR == /* ]] || DIR=$PWD/$DIR
DIR=${DIR%/}
if [[ $CMD != start && $CMD != stop && ! -f $DIR/addrs ]]; then
	die "$DIR is not a zk.sh state directory (no addrs file)"
fi
case $CMD:$# in
start:3) cmd_start "$3" ;;
stop:2) cmd_stop ;;
leader:2) cmd_leader ;;
kill:3) cmd_kill "$3" ;;
restart:3) cmd_restart "$3" ;;
status:2) cmd_status ;;
*) usage ;;
esac
