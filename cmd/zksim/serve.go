package main

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/simcli"
)

const serveUsage = `usage: zksim serve [-addr HOST:PORT] [-control HOST:PORT] [-control-token-file FILE]
                   [-4lw WORDS] [-tick MS] [-seed S] [-followers N] [-max-conns N]
                   [-max-frame BYTES] [-frame-budget BYTES]
                   [-max-session-watches N] [-max-watches N]
                   [-overflow pin|wrap] [-container-check MS] [-extended-types]
                   [-emulate353-ttl] [-reconfig] [-super-digest USER:DIGEST]
                   [-sasl-users JAAS-FILE] [-faults SPEC] [-v]

Serves the in-memory ZooKeeper over ZooKeeper's client protocol, so that an
unmodified client (go-zookeeper, kazoo, zkCli.sh, Curator) can run against
it, with faults injected by -faults at start or through the control
interface (HTTP) while it runs, which takes the token serve prints:

  H="Authorization: Bearer TOKEN"
  curl -H "$H" http://CONTROL/                          (every endpoint)
  curl -H "$H" -d 'lose-reply:op=create,path=/locks/' http://CONTROL/faults
  curl -H "$H" http://CONTROL/faults                    (armed faults: ID SPEC)
  curl -H "$H" -X DELETE http://CONTROL/faults/1        (disarm one; /faults: all)
  curl -H "$H" http://CONTROL/sessions
  curl -H "$H" -d 'expire:session=0x100000000000000' http://CONTROL/faults
  curl -H "$H" -X POST http://CONTROL/members/1/stop    (a killed member; /start again)
  curl -H "$H" http://CONTROL/members                   (index, address, state)

It prints one line per address ("zksim serve: leader on 127.0.0.1:PORT",
a follower line per -followers, "zksim serve: control token TOKEN",
"zksim serve: control on http://...") and runs until interrupted (SIGINT or SIGTERM). The tree lives in memory only:
stopping serve (or kill -9) loses it, as a real server whose data
directory is wiped. A stopped member refuses connections; with fewer than a
majority of members running no member serves sessions, and no session
expires until a majority is back. Out of file descriptors, it retries accepting after
5 ms, doubling up to 1 s; a request frame that does not fit in
-frame-budget closes its connection (the session lives on). So does a
request that would set a watch past -max-session-watches or -max-watches
(an existing watch set again does not count; addWatch counts two): the
client sees the connection lost and keeps its session and the watches it
had, and serve prints a line naming the session, the cap and its flag.

TTL nodes are refused (Unimplemented) unless -extended-types is given, as
a real server refuses them without zookeeper.extendedTypesEnabled; with
it, a TTL node without children whose last change is older than its TTL
is deleted by the container reaper, which runs every -container-check
ms of virtual time (a tick is -tick real ms).

On a shared machine: the control interface refuses requests without the
token (a random one unless -control-token-file gives it), with a Host
other than an IP address or localhost, or from a foreign Origin, and
/tree lists only what a client without credentials may list (or, with
X-Zksim-Digest: USER:PASSWORD headers, what one with those may); serve warns
on stderr when -control is not on loopback. Four-letter words other than
-4lw's (srvr alone by default, as ZooKeeper 3.8's 4lw.commands.whitelist)
are answered "WORD is not executed because it is not in the whitelist.".
Session passwords are random unless -seed is given.

SASL: with -sasl-users, a JAAS file's Server section of
DigestLoginModule users (user_NAME="PASSWORD"), as a real server reads
through -Djava.security.auth.login.config, clients log in with DIGEST-MD5
(kazoo's sasl_options, Curator's and the Java client's JAAS Client
section) and gain the identity sasl:NAME, which sasl ACL entries grant;
SASLAuthenticationProvider is registered as by authProvider.1. A wrong
password or an unknown user closes the connection (AuthFailed); the
session lives on. Without it every SASL token is answered with an empty
one and sasl ACL entries are refused (InvalidACL), as by a default server.

Exit codes: 0 stopped by a signal, 1 cannot listen or serve, 2 usage error.
`

func runServe(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, stdout, stderr)
}

// serveConfig is zksim serve's flags, checked.
type serveConfig struct {
	addr, control, faults string
	tokenFile             string
	followers             int
	verbose               bool
	srv                   netserver.Config
}

func parseServe(args []string, stderr io.Writer) (serveConfig, int) {
	var c serveConfig
	fs := simcli.NewFlags("serve", serveUsage+"\n"+netserver.FaultSpecHelp+"\n\nFlags:\n", stderr)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:0", "client address of the leader (port 0: a free port)")
	fs.StringVar(&c.control, "control", "127.0.0.1:0", `control interface address ("off" for none)`)
	tick := fs.Int64("tick", 2000, "tickTime in real milliseconds; session timeouts are 2-20 ticks")
	seed := fs.Uint64("seed", 0, "seed of session passwords, which are random without -seed (with it anyone who knows a session id can resume that session); not 0: also shuffles every children listing (0: ZooKeeper's own order)")
	fs.StringVar(&c.tokenFile, "control-token-file", "", "read the control interface's token from FILE (first line) instead of making a random one")
	words := fs.String("4lw", "srvr", `four-letter words answered, comma-separated, as 4lw.commands.whitelist ("*": all, e.g. for ruok, mntr, wchc, dump)`)
	fs.IntVar(&c.followers, "followers", 0, "follower servers, each on its own port; they catch up after every request, as a real ensemble's do (see -follower-lag)")
	lag := fs.Bool("follower-lag", false, "followers apply the leader's writes only on the next tick, so their sessions read stale data for up to a tick (as in the simulator)")
	maxConns := fs.Int("max-conns", 60, "connections per client IP (maxClientCnxns; 0 no limit)")
	maxFrame := fs.Int("max-frame", machine.DefaultMaxFrame, "largest request frame in bytes (jute.maxbuffer)")
	budget := fs.Int("frame-budget", netserver.DefaultFrameBudget,
		"bytes all connections together may hold for request frames still arriving (at least -max-frame; 0 no limit)")
	sessionWatches := fs.Int("max-session-watches", netserver.DefaultMaxSessionWatches,
		"watches one session may hold (data and child watches on a path count one each; 0 no limit)")
	allWatches := fs.Int("max-watches", netserver.DefaultMaxWatches, "watches all sessions may hold together (0 no limit)")
	overflow := fs.String("overflow", "pin", "sequence counter past 2^31-1: pin (ZooKeeper 3.6+) or wrap")
	check := fs.Int64("container-check", machine.DefaultContainerCheckMillis,
		"how often, in ms of virtual time, empty containers and expired TTL nodes are reaped (znode.container.checkIntervalMs; rounded down to whole ticks, at least one)")
	ext := fs.Bool("extended-types", false,
		"allow TTL nodes (createTTL and the TTL create modes), as zookeeper.extendedTypesEnabled=true does; without it they are refused with Unimplemented")
	emulate := fs.Bool("emulate353-ttl", false,
		"as zookeeper.emulate353TTLNodes=true: also read 3.5.3-format TTL nodes, which a tree that starts empty never holds, so nothing served changes (accepted for configurations that set it; ignored without -extended-types, as by ZooKeeper)")
	reconfig := fs.Bool("reconfig", false, "answer reconfig (opcode 16) as ZooKeeper 3.8 with reconfigEnabled=true does; off: ReconfigDisabled, 3.8's default")
	saslUsers := fs.String("sasl-users", "", `serve SASL DIGEST-MD5 to the users of FILE's JAAS Server section (user_NAME="PASSWORD" options, as ZooKeeper reads through java.security.auth.login.config), with sasl ACLs`)
	superDigest := fs.String("super-digest", "", "super user as USER:base64(sha1(USER:PASSWORD)), ZooKeeper's zookeeper.DigestAuthenticationProvider.superDigest: a client that adds that digest passes every ACL check")
	fs.StringVar(&c.faults, "faults", "", "faults to arm at start (a fault spec, see below)")
	fs.BoolVar(&c.verbose, "v", false, "log connections, sessions and faults to stderr")
	if code := simcli.ParseFlags(fs, args); code >= 0 {
		return c, code
	}
	bad := func(format string, a ...any) (serveConfig, int) {
		return c, simcli.UsageError("zksim", fs, format, a...)
	}
	switch {
	case fs.NArg() > 0:
		return bad("unexpected argument %q", fs.Arg(0))
	case *tick < 1 || *tick > 60000:
		return bad("-tick must be 1-60000 ms, got %d", *tick)
	case c.followers < 0 || c.followers > 10:
		return bad("-followers must be 0-10, got %d", c.followers)
	case *maxConns < 0:
		return bad("-max-conns must be >= 0, got %d", *maxConns)
	case *maxFrame < 1024:
		return bad("-max-frame must be at least 1024 bytes, got %d", *maxFrame)
	case *budget < 0 || *budget > 0 && *budget < *maxFrame && flagSet(fs, "frame-budget"):
		return bad("-frame-budget must be 0 or at least -max-frame (%d), got %d", *maxFrame, *budget)
	case *sessionWatches < 0 || *allWatches < 0:
		return bad("-max-session-watches and -max-watches must be >= 0, got %d and %d", *sessionWatches, *allWatches)
	case *overflow != "pin" && *overflow != "wrap":
		return bad("-overflow must be pin or wrap, got %q", *overflow)
	case *check < 1:
		return bad("-container-check must be at least 1 ms, got %d", *check)
	case *superDigest != "" && !validDigest(*superDigest):
		return bad("-super-digest must be USER:DIGEST, the digest 28 characters of base64, got %q", *superDigest)
	}
	for _, a := range []struct{ flag, val string }{{"-addr", c.addr}, {"-control", c.control}} {
		if _, _, err := net.SplitHostPort(a.val); err != nil && !(a.flag == "-control" && a.val == "off") {
			return bad("%s %q is not HOST:PORT", a.flag, a.val)
		}
	}
	c.srv = netserver.Config{
		FourLetterWords: splitWords(*words),
		SeededPasswords: flagSet(fs, "seed"),
		Machine: machine.Config{
			Seed: *seed, TickMillis: *tick, MaxFrame: *maxFrame, Followers: c.followers,
			ContainerCheckTicks: int(max(1, min(*check / *tick, math.MaxInt32))),
			ExtendedTypes:       *ext,
			EmulateTTL353:       *emulate,
			// Node times are the host's clock, as on a real server
			// (EpochMillis 0: see netserver.Config.Machine).
			SuperDigest: *superDigest,
		},
		MaxClientCnxns:    *maxConns,
		MaxSessionWatches: noLimit(*sessionWatches),
		MaxWatches:        noLimit(*allWatches),
		FollowerLag:       *lag,
		Reconfig:          *reconfig,
	}
	if err := netserver.CheckFourLetterWords(c.srv.FourLetterWords); err != nil {
		return bad("-4lw: %v", err)
	}
	if *saslUsers != "" {
		users, err := readJAAS(*saslUsers)
		if err != nil {
			return bad("-sasl-users: %v", err)
		}
		c.srv.SASLUsers = users
	}
	if *maxConns == 0 {
		c.srv.MaxClientCnxns = -1
	}
	switch {
	case !flagSet(fs, "frame-budget"):
		// The server's default: the flag's, or -max-frame if larger.
	case *budget == 0:
		c.srv.FrameBudget = -1
	default:
		c.srv.FrameBudget = *budget
	}
	if *overflow == "wrap" {
		c.srv.Machine.Overflow = machine.OverflowWrap
	}
	return c, -1
}

// noLimit is a cap flag as netserver takes it: the flag's 0 (no limit)
// is netserver's negative.
func noLimit(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, code := parseServe(args, stderr)
	if code >= 0 {
		return code
	}
	c.srv.Warnf = func(format string, a ...any) {
		fmt.Fprintf(stderr, "zksim serve: "+format+"\n", a...)
	}
	if c.verbose {
		c.srv.Logf = func(format string, a ...any) {
			fmt.Fprintf(stderr, "zksim serve: "+format+"\n", a...)
		}
	}
	srv, err := netserver.New(c.srv)
	if err != nil {
		fmt.Fprintf(stderr, "zksim serve: %v\n", err)
		return 2
	}
	defer srv.Close()
	if c.faults != "" {
		if err := srv.ApplyFaults(c.faults); err != nil {
			fmt.Fprintf(stderr, "zksim serve: -faults: %v\n", err)
			return 2
		}
	}
	// The token file is read before anything listens: an unreadable one
	// is a usage error, not a server that runs without its control.
	token, err := controlToken(c.tokenFile)
	if err != nil {
		fmt.Fprintf(stderr, "zksim serve: -control-token-file: %v\n", err)
		return 2
	}
	if err := listen(srv, c, stdout); err != nil {
		fmt.Fprintf(stderr, "zksim serve: %v\n", err)
		return 1
	}
	if c.control != "off" {
		stopControl, err := startControl(srv, c.control, token, stdout, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "zksim serve: control: %v\n", err)
			return 1
		}
		defer stopControl()
	}
	<-ctx.Done()
	return 0
}

// listen binds the leader's address, then one free port per follower on
// the same host, and prints each.
func listen(srv *netserver.Server, c serveConfig, stdout io.Writer) error {
	host, _, _ := net.SplitHostPort(c.addr)
	for i := 0; i <= c.followers; i++ {
		addr := c.addr
		if i > 0 {
			addr = net.JoinHostPort(host, "0")
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("-addr: %w", err)
		}
		role := "leader"
		if i > 0 {
			role = fmt.Sprintf("follower %d", i)
		}
		fmt.Fprintf(stdout, "zksim serve: %s on %s\n", role, l.Addr())
		go srv.ServeReplica(l, i)
	}
	return nil
}

// startControl serves the control interface on addr, guarded by token
// (printed before the address, so a script that reads up to the address
// has both), and warns when other hosts can reach it.
func startControl(srv *netserver.Server, addr, token string, stdout, stderr io.Writer) (func(), error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if !loopback(l.Addr()) {
		fmt.Fprintf(stderr, "zksim serve: WARNING: the control interface listens on %s, which other hosts can reach: "+
			"anyone there with the token can expire sessions, lose requests and stop members (use -control 127.0.0.1:PORT)\n", l.Addr())
	}
	fmt.Fprintf(stdout, "zksim serve: control token %s\n", token)
	fmt.Fprintf(stdout, "zksim serve: control on http://%s\n", l.Addr())
	hs := &http.Server{Handler: srv.Handler(token), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(l)
	return func() { hs.Close() }, nil
}

// loopback reports whether a listener's address is reachable from this
// host only.
func loopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// controlToken is the token in file (its first line), or a random one.
func controlToken(file string) (string, error) {
	if file == "" {
		return netserver.NewToken()
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	if token := strings.TrimSpace(line); token != "" {
		return token, nil
	}
	return "", fmt.Errorf("%s: %w", file, errEmptyToken)
}

// errEmptyToken: a token file without a token would lock everyone out.
var errEmptyToken = errors.New("no token on its first line")

// splitWords reads -4lw's comma-separated list.
func splitWords(s string) []string {
	words := []string{}
	for _, w := range strings.Split(s, ",") {
		if w = strings.TrimSpace(w); w != "" {
			words = append(words, w)
		}
	}
	return words
}

// validDigest reports whether s is USER:DIGEST with DIGEST a base64 SHA-1
// (what zkapi.DigestID gives): ZooKeeper compares the super digest as a
// string, so a malformed one would silently never match.
func validDigest(s string) bool {
	user, digest, ok := strings.Cut(s, ":")
	sum, err := base64.StdEncoding.DecodeString(digest)
	return ok && user != "" && err == nil && len(sum) == sha1.Size
}

// readJAAS reads -sasl-users' file.
func readJAAS(file string) (map[string]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	users, err := netserver.ParseJAAS(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return users, nil
}

// flagSet reports whether name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
