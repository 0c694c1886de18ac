package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zksim/zksim/semaphore"
)

// envServers names the environment variable that -servers overrides, as
// ETCDCTL_ENDPOINTS is to etcdctl's --endpoints.
const envServers = "ZKLOCK_SERVERS"

type options struct {
	servers        []string
	read           bool
	leases         int  // -n: 0 for the lock, else a semaphore of this many leases
	leasesSet      bool // -n was given, so 0 is refused rather than taken for the lock
	nonblock       bool
	timeout        time.Duration
	connectTimeout time.Duration
	session        time.Duration
	sig            syscall.Signal
	killAfter      time.Duration
	conflictExit   int
	lostExit       int
	path           string
	chroot         string   // from the server string's /suffix; "" for none
	command        []string // empty: hold until a signal
}

// seconds is a duration flag that also takes a bare number of seconds,
// fractions too ("1.5"), as flock -w and timeout(1) do.
type seconds struct{ d *time.Duration }

func (s seconds) String() string {
	if s.d == nil {
		return ""
	}
	return s.d.String()
}

func (s seconds) Set(v string) error {
	if d, err := time.ParseDuration(v); err == nil {
		*s.d = d
		return nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f > 1e9 {
		return fmt.Errorf("want a duration such as 1.5s, 500ms or 2m, or a number of seconds")
	}
	*s.d = time.Duration(f * float64(time.Second))
	return nil
}

func durationVar(fs *flag.FlagSet, d *time.Duration, name string, value time.Duration, usage string) {
	*d = value
	fs.Var(seconds{d}, name, usage+" (a duration such as 1.5s, or a bare number of seconds)")
}

// signalsByName are the signals -signal accepts.
var signalsByName = map[string]syscall.Signal{
	"TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "HUP": syscall.SIGHUP,
	"QUIT": syscall.SIGQUIT, "KILL": syscall.SIGKILL,
	"USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2,
}

const usageHead = `usage: zklock [-servers host:port[,...][/chroot]] [flags] /lock/path [-- command args...]

Holds zksim's lock at /lock/path on a ZooKeeper ensemble while the command
runs, with the fencing token in ZKLOCK_TOKEN and the lock node in
ZKLOCK_NODE; with -n N, one of N semaphore leases instead, so that up to N
commands run at once. The servers come from -servers, else from
$ZKLOCK_SERVERS. With no command, zklock prints ZKLOCK_NODE= and
ZKLOCK_TOKEN= lines and holds until a signal (then releases, exit 0).
Signals: every one whose default ends a process, if Go can catch it
(HUP, INT, QUIT, TERM, USR1, USR2, PIPE, ALRM, ABRT, real-time ones, ...;
not KILL, 32 or 34), is passed on to the command, and the lock is
released only once the command has exited; while zklock connects or
waits, a signal makes it leave the queue and exit 128+S.

`

// usageCodes is the exit-code table, shared by the usage text and the
// package doc (TestZklock_DocumentsExitCodes keeps docs/zklock.md in step).
const usageCodes = `
Exit codes:
  N    the command's own code (128+S if signal S ended it), when the lock
       was confirmed still held after the command ended
  2    usage error, or -n N where the path's semaphore has another N; the
       command did not run
  3    -nonblock or -timeout: the lock (all N leases) was held by others;
       the command did not run (-conflict-exit N replaces 3)
  4    the lock was lost, or could not be confirmed held: before the
       command started (it did not run), or while it ran (zklock prints
       the command's own code; -lost-exit N replaces 4)
  5    ZooKeeper unreachable within -connect-timeout, or failing, before
       the command started; the command did not run
  126  the command could not be executed; 127 it was not found
  128+S  signal S came while connecting or waiting: zklock left the
       queue, closed its session; the command did not run
Every code of zklock's own comes with a "zklock: " line on stderr, and
after the command has run the only one is 4 (or -lost-exit): a command
that itself exits 4 is told apart by that line, or by -lost-exit.
`

// parse reads the flags, with getenv for ZKLOCK_SERVERS; it returns the
// options and -1, or the exit code when zklock should stop (0 for -h).
func parse(args []string, getenv func(string) string, stderr io.Writer) (options, int) {
	fs := flag.NewFlagSet("zklock", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	servers := fs.String("servers", "", "ZooKeeper servers, host:port[,host:port...]; overrides $"+envServers)
	fs.BoolVar(&o.read, "read", false, "take the read side of the read/write lock: shared with other -read holders; it excludes rwlock writers, not zklock without -read")
	fs.IntVar(&o.leases, "n", 0, "hold one of N semaphore leases instead of the lock: up to N zklock -n commands run at once; all on the path must give the same N")
	fs.BoolVar(&o.nonblock, "nonblock", false, "fail at once (exit 3) if the lock is held, like flock -n")
	durationVar(fs, &o.timeout, "timeout", 0, "give up after this long waiting for the lock (exit 3); 0: wait")
	fs.IntVar(&o.conflictExit, "conflict-exit", exitConflict, "exit code when -nonblock or -timeout could not take the lock, like flock -E")
	fs.IntVar(&o.lostExit, "lost-exit", exitLost, "exit code when the lock was lost or could not be confirmed held")
	durationVar(fs, &o.connectTimeout, "connect-timeout", 10*time.Second, "give up if no ZooKeeper session is granted within this long, dial and handshake (exit 5)")
	durationVar(fs, &o.session, "session-timeout", 10*time.Second, "ZooKeeper session timeout; also the bound on the check and the release after the command, and on leaving the queue")
	sig := fs.String("signal", "TERM", "signal for the command when the lock is lost: TERM, INT, HUP, QUIT, USR1, USR2 or KILL")
	durationVar(fs, &o.killAfter, "kill-after", 10*time.Second, "send SIGKILL this long after -signal if the command still runs")
	fs.Usage = func() {
		fmt.Fprint(stderr, usageHead)
		fs.PrintDefaults()
		fmt.Fprint(stderr, usageCodes)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return options{}, 0
		}
		return options{}, exitUsage
	}
	fs.Visit(func(f *flag.Flag) {
		o.leasesSet = o.leasesSet || f.Name == "n"
	})
	if err := o.finish(*servers, *sig, getenv, fs.Args()); err != nil {
		fmt.Fprintf(stderr, "zklock: %v\n", err)
		fs.Usage()
		return options{}, exitUsage
	}
	return o, -1
}

// finish checks the flags together and fills in what they name.
func (o *options) finish(servers, sig string, getenv func(string) string, rest []string) error {
	source := "-servers"
	if servers == "" {
		servers, source = getenv(envServers), "$"+envServers
	}
	s, ok := signalsByName[strings.TrimPrefix(strings.ToUpper(sig), "SIG")]
	switch {
	case strings.TrimSpace(servers) == "":
		return fmt.Errorf("no servers: give -servers host:port[,...] or set %s", envServers)
	case !ok:
		return fmt.Errorf("-signal %q: want TERM, INT, HUP, QUIT, USR1, USR2 or KILL", sig)
	case o.timeout < 0 || o.session <= 0 || o.killAfter < 0 || o.connectTimeout <= 0:
		return errors.New("durations must be positive")
	case o.nonblock && o.timeout > 0:
		return errors.New("-nonblock and -timeout exclude each other")
	case (o.leases != 0 || o.leasesSet) && (o.leases < 1 || o.leases > semaphore.MaxLeases):
		return fmt.Errorf("-n %d: want a number of leases from 1 to %d", o.leases, semaphore.MaxLeases)
	case o.leases != 0 && o.read:
		return errors.New("-n and -read exclude each other: a semaphore lease has no read side")
	case !validExit(o.conflictExit) || !validExit(o.lostExit):
		return errors.New("-conflict-exit and -lost-exit must be exit codes, 0 to 255")
	case len(rest) == 0 || (len(rest) > 1 && rest[1] != "--"):
		return errors.New("want a lock path, then -- and the command (or nothing, to hold until a signal)")
	case !strings.HasPrefix(rest[0], "/") || rest[0] == "/":
		return fmt.Errorf("lock path %q must be an absolute node path other than /", rest[0])
	}
	hosts, chroot, _ := strings.Cut(servers, "/")
	if chroot = strings.TrimSuffix("/"+chroot, "/"); chroot != "" && (strings.Contains(chroot, "//") || !strings.HasPrefix(chroot, "/")) {
		return fmt.Errorf("%s: chroot %q: want /a/path", source, chroot)
	}
	list, err := parseServers(hosts)
	if err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	o.servers, o.sig, o.chroot, o.path = list, s, chroot, chroot+rest[0]
	if len(rest) > 2 {
		o.command = rest[2:]
	}
	return nil
}

func validExit(n int) bool { return n >= 0 && n <= 255 }

// parseServers splits a host:port list. The port is required: a bare word
// is far likelier a mistake than a host on ZooKeeper's default port, and
// is a usage error rather than a failed DNS lookup ten seconds later.
func parseServers(s string) ([]string, error) {
	var out []string
	for _, one := range strings.Split(s, ",") {
		one = strings.TrimSpace(one)
		host, port, err := net.SplitHostPort(one)
		if err != nil {
			return nil, fmt.Errorf("server %q: want host:port", one)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || host == "" {
			return nil, fmt.Errorf("server %q: want host:port with a port from 1 to 65535", one)
		}
		out = append(out, one)
	}
	return out, nil
}
