package netserver_test

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi/gozk"
)

// The raw-frame differential test: each rawCase sends the same bytes to a
// real ZooKeeper 3.8 server and to the fake, and the two observations
// (every frame the server sends back, described with zxids, session ids,
// passwords and times normalised; whether the connection closes; whether
// the session survives) must be equal. A case whose difference is known
// and not fixed says why in gap; its difference is logged, not failed.

// env is what a case's bytes may depend on.
type env struct {
	root string // the case's own node, created before the case runs
	z0   int64  // the server's last zxid just before the case's bytes
	sid  int64
	pw   []byte
}

type rawCase struct {
	name string
	// first is sent in place of the handshake; the observation is the
	// bytes the server answers before it closes (text: any non-empty
	// text, for the admin commands whose numbers differ).
	first []byte
	text  bool
	// connect replaces the handshake of a second connection, made while a
	// first one holds a live session (closed first if closeFirst); both
	// connections are observed.
	connect    func(sid int64, pw []byte) []byte
	closeFirst bool
	// setup is sent after the handshake; its replies are not compared.
	setup func(e env) []byte
	// send is the bytes under test.
	send func(e env) []byte
	// then, if set, is sent once every reply to send has arrived. An auth
	// goes there when requests precede it: ZooKeeper answers an auth at
	// once, ahead of requests still in its pipeline, so pipelined after
	// them its reply's place would depend on timing.
	then func(e env) []byte
	// unfinished: send ends inside a frame, so no barrier can follow.
	unfinished bool
	// hangup: the client closes the connection right after send.
	hangup bool
	// gap, if set, is why the fake answers differently (a known gap).
	gap string
	// notLive, if set, is why the case is never sent to a real server:
	// the fake is compared with the answer recorded in goldenFile instead.
	notLive string
}

const (
	xidZ0       int32 = 900001 // the exists that reads the zxid before a case
	xidBarrier  int32 = 900002 // the exists that marks the end of a case
	xidBarrier2 int32 = 900003 // the one after it, to see a close
	xidSetup    int32 = 800000 // setup requests count up from here
	quietFor          = 300 * time.Millisecond
	replyWait         = 5 * time.Second
)

var update = flag.Bool("update", false, "rewrite "+goldenFile+" with what the real server (ZKSIM_ZK_STANDALONE) answers")

// goldenFile holds the real server's observation of every raw case, so
// that TestRaw_FakeMatchesRecorded checks the fake without a real server.
const goldenFile = "testdata/rawcases.golden"

// TestRawDiff_RealVsFake runs every raw case on a real server and on the
// fake. The expected behaviour of each comes from ZooKeeper 3.8.0's
// sources (NIOServerCnxn, ZooKeeperServer.processPacket and
// processConnectRequest, PrepRequestProcessor, FinalRequestProcessor) and
// is checked here against the real thing. With -update it rewrites
// goldenFile.
func TestRawDiff_RealVsFake(t *testing.T) {
	rawDiff(t, zktest.Standalone(t)[0], serverConfig(), rawCases(), goldenFile)
}

// rawDiff runs cases on the real server at real and on a fake configured
// as cfg, and with -update rewrites golden.
func rawDiff(t *testing.T, real string, cfg netserver.Config, cases []rawCase, goldenFile string) {
	_, fake := newFake(t, cfg)
	ctx := zktest.Context(t, 2*time.Minute)
	realTop := zktest.Root(t, ctx, zktest.Dial(t, ctx, []string{real}, gozk.Config{}), "/zksim-rawdiff-")
	fakeTop := zktest.Root(t, ctx, zktest.Dial(t, ctx, []string{fake}, gozk.Config{}), "/zksim-rawdiff-")
	recorded := readGolden(t, goldenFile)
	golden := map[string]string{}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := observe(t, fake, fmt.Sprintf("%s/c%d-0", fakeTop, i), tc)
			if tc.notLive != "" {
				want, ok := recorded[tc.name]
				if !ok {
					t.Fatalf("not sent to the real server (%s), and %s has no recorded answer", tc.notLive, goldenFile)
				}
				t.Logf("compared with the recorded answer, not live: %s", tc.notLive)
				golden[tc.name] = want
				compare(t, tc, want, got)
				return
			}
			want := observe(t, real, fmt.Sprintf("%s/c%d-0", realTop, i), tc)
			// Other tests may write to the real server meanwhile, which
			// moves its zxids: a difference must hold on later tries, and
			// a busy server may keep adding to the zxids the fake shows.
			for try := 1; got != want && try < 5; try++ {
				want = observe(t, real, fmt.Sprintf("%s/c%d-%d", realTop, i, try), tc)
			}
			golden[tc.name] = want
			if got != want && zxidsAbove(want, got) {
				t.Logf("the real server's zxids moved on during every try; beyond that the fake matches:\nreal:\n%s\nfake:\n%s", want, got)
				*update = false
				return
			}
			compare(t, tc, want, got)
		})
	}
	if *update && !t.Failed() {
		writeGolden(t, goldenFile, cases, golden)
	}
}

// TestRaw_FakeMatchesRecorded runs every raw case on the fake alone and
// compares with what the real server answered when goldenFile was
// recorded. It checks that the server's goroutines all end.
func TestRaw_FakeMatchesRecorded(t *testing.T) {
	rawRecorded(t, serverConfig(), rawCases(), goldenFile)
}

// rawRecorded runs cases on a fake configured as cfg and compares with
// golden.
func rawRecorded(t *testing.T, cfg netserver.Config, cases []rawCase, goldenFile string) {
	checkLeaks(t)
	golden := readGolden(t, goldenFile)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, ok := golden[tc.name]
			if !ok {
				t.Fatalf("no recorded observation in %s: run its TestRawDiff test with -update and the real server set", goldenFile)
			}
			// A server of its own per case: on a shared one, the sessions
			// of earlier cases expire (10 s after their connections close,
			// in wall-clock time) while a slow machine runs later ones, and
			// their closes move the zxids a case reads. Cleanups run last
			// first: the tree goes, then the admin session, then the server.
			_, fake := newFake(t, cfg)
			ctx := zktest.Context(t, time.Minute)
			admin := zktest.Dial(t, ctx, []string{fake}, gozk.Config{})
			top := zktest.Root(t, ctx, admin, "/zksim-rawdiff-")
			compare(t, tc, want, observe(t, fake, fmt.Sprintf("%s/c%d-0", top, i), tc))
		})
	}
}

func compare(t *testing.T, tc rawCase, want, got string) {
	t.Helper()
	switch {
	case got == want && tc.gap != "":
		t.Errorf("known gap (%s) no longer shows: drop it from the case\nboth:\n%s", tc.gap, got)
	case got == want:
		t.Logf("both:\n%s", got)
	case tc.gap != "":
		t.Logf("known gap (%s):\nreal:\n%s\nfake:\n%s", tc.gap, want, got)
	default:
		t.Errorf("real and fake differ\nreal:\n%s\nfake:\n%s", want, got)
	}
}

// zxidsAbove reports whether real and fake differ only in zxids "Z+k",
// each real one no smaller than the fake's: what other clients' writes
// do to a real observation.
func zxidsAbove(real, fake string) bool {
	r, f := strings.Fields(real), strings.Fields(fake)
	if len(r) != len(f) {
		return false
	}
	for i := range r {
		if r[i] == f[i] {
			continue
		}
		rk, rok := zxidOffset(r[i])
		fk, fok := zxidOffset(f[i])
		if !rok || !fok || rk < fk {
			return false
		}
	}
	return true
}

// zxidOffset reads k out of a field "name=Z+k" or "name=Z+k}".
func zxidOffset(field string) (int, bool) {
	_, z, ok := strings.Cut(field, "=Z+")
	if !ok {
		return 0, false
	}
	k, err := strconv.Atoi(strings.TrimSuffix(z, "}"))
	return k, err == nil
}

// The golden file is a block per case: "== name", then its observation.
func writeGolden(t *testing.T, goldenFile string, cases []rawCase, golden map[string]string) {
	var b strings.Builder
	b.WriteString(goldenHeader[goldenFile])
	for _, tc := range cases {
		fmt.Fprintf(&b, "== %s\n%s\n", tc.name, golden[tc.name])
	}
	if err := os.WriteFile(goldenFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// goldenHeader is the comment each golden file starts with.
var goldenHeader = map[string]string{
	goldenFile: "# What ZooKeeper 3.8.0 (standalone, tickTime 500) answers to each raw case of rawcases_test.go.\n" +
		"# Rewritten by: go test ./fakezk/netserver -run RawDiff -update, with " + zktest.EnvStandalone + " set.\n",
	ttlGoldenFile: "# What ZooKeeper 3.8.0 (standalone, tickTime 500, zookeeper.extendedTypesEnabled=true) answers to each raw case of rawttl_test.go.\n" +
		"# Rewritten by: go test ./fakezk/netserver -run RawDiffTTL -update, with " + zktest.EnvExtended + " set.\n",
}

func readGolden(t *testing.T, goldenFile string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	golden := map[string]string{}
	var name string
	var lines []string
	flush := func() {
		if name != "" {
			golden[name] = strings.Join(lines, "\n")
		}
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "== "):
			flush()
			name, lines = strings.TrimPrefix(line, "== "), nil
		default:
			lines = append(lines, line)
		}
	}
	flush()
	return golden
}

// observe runs tc on the server at addr, with root as the case's node,
// and describes what it saw, one line per event.
func observe(t *testing.T, addr, root string, tc rawCase) string {
	t.Helper()
	var out []string
	add := func(f string, a ...any) { out = append(out, fmt.Sprintf(f, a...)) }
	if tc.first != nil {
		c := dialRaw(t, addr)
		c.write(tc.first)
		d := quietFor
		if tc.text {
			d = replyWait
		}
		b, err := c.rest(d)
		switch {
		case tc.text && len(b) > 0:
			add("text")
		case len(b) > 0:
			add("bytes %q", b)
		}
		add("%s", state(err))
		return strings.Join(out, "\n")
	}
	a := dialRaw(t, addr)
	sid, pw, _ := a.handshake(10000, 0, nil)
	e := env{root: root, sid: sid, pw: pw}
	n := &norm{sid: sid, root: e.root}
	a.write(req(xidSetup, wire.OpCreate, jb{}.create(e.root, "r", 0)))
	if tc.setup != nil {
		a.write(tc.setup(e))
	}
	// The zxid of the last setup write, not the server's last zxid: other
	// clients' writes meanwhile must not make setup nodes look older.
	_, setup := a.zxid(xidZ0)
	for _, b := range setup {
		if xid := int32(binary.BigEndian.Uint32(b)); xid != wire.XidWatch {
			n.z0 = max(n.z0, int64(binary.BigEndian.Uint64(b[4:])))
		}
	}
	e.z0 = n.z0
	c := a
	if tc.connect != nil {
		if tc.closeFirst {
			a.write(req(xidSetup-1, wire.OpCloseSession, nil))
			a.rest(replyWait)
		}
		c = dialRaw(t, addr)
		c.write(tc.connect(sid, pw))
		f, err := c.frame(replyWait)
		if err != nil {
			add("connect: %s", state(err))
		} else {
			add("%s", connectResp(f, sid))
		}
	}
	var sent []byte
	if tc.send != nil {
		sent = tc.send(e)
		c.write(sent)
	}
	ops := opsByXid(sent)
	switch {
	case tc.hangup:
		c.nc.Close()
	case tc.unfinished:
		out = append(out, frames(c, n, ops, 0)...)
	default:
		if tc.then != nil {
			c.write(req(xidBarrier, wire.OpExists, jb{}.str("/").bool(false)))
			before := frames(c, n, ops, xidBarrier)
			if k := len(before) - 1; k >= 0 && before[k] == "open" {
				before = before[:k] // still open: the end says so
			}
			out = append(out, before...)
			later := tc.then(e)
			c.write(later)
			ops = opsByXid(later)
		}
		c.write(req(xidBarrier, wire.OpExists, jb{}.str("/").bool(false)))
		out = append(out, frames(c, n, ops, xidBarrier)...)
	}
	if c != a && !tc.closeFirst {
		a.write(req(xidBarrier, wire.OpExists, jb{}.str("/").bool(false)))
		lines := frames(a, n, nil, xidBarrier)
		add("first connection: %s", strings.Join(lines, "; "))
	}
	add("%s", survives(t, addr, sid, pw))
	return strings.Join(out, "\n")
}

// frames describes what c receives up to the reply to xid end (0: until
// the server is quiet or closes), then whether the connection is open.
func frames(c *rawConn, n *norm, ops map[int32]wire.Op, end int32) []string {
	var out []string
	for {
		d := replyWait
		if end == 0 {
			d = quietFor
		}
		b, err := c.frame(d)
		if err != nil {
			if end != 0 && errors.Is(err, errQuiet) {
				return append(out, "no reply to the barrier")
			}
			return append(out, state(err))
		}
		xid := int32(binary.BigEndian.Uint32(b))
		if end != 0 && xid == end {
			// ZooKeeper closes a connection asynchronously: requests
			// read before the close may still be answered. A second
			// round trip sees the close.
			c.write(req(xidBarrier2, wire.OpExists, jb{}.str("/").bool(false)))
			if _, err := c.frame(replyWait); err != nil {
				return append(out, state(err))
			}
			return append(out, "open")
		}
		op := ops[xid]
		if xid == wire.XidPing {
			op = wire.OpPing
		}
		out = append(out, n.reply(b, op))
	}
}

func state(err error) string {
	switch {
	case errors.Is(err, errQuiet):
		return "open"
	case errors.Is(err, io.EOF):
		return "closed"
	}
	return "error " + err.Error()
}

// survives reconnects to the session with its password: "session alive"
// (and closes it), or "session gone" (a refused handshake).
func survives(t *testing.T, addr string, sid int64, pw []byte) string {
	c := dialRaw(t, addr)
	c.write(connectReq(10000, sid, pw))
	b, err := c.frame(replyWait)
	if err != nil {
		return "reconnect: " + state(err)
	}
	if binary.BigEndian.Uint32(b[4:]) == 0 {
		return "session gone"
	}
	c.write(req(1, wire.OpCloseSession, nil))
	c.rest(replyWait)
	return "session alive"
}

// opsByXid reads the request types out of a run of frames, as far as
// they are whole.
func opsByXid(b []byte) map[int32]wire.Op {
	ops := map[int32]wire.Op{}
	for len(b) >= 12 {
		n := int(binary.BigEndian.Uint32(b))
		if n < 8 || n > len(b)-4 {
			break
		}
		ops[int32(binary.BigEndian.Uint32(b[4:]))] = wire.Op(int32(binary.BigEndian.Uint32(b[8:])))
		b = b[4+n:]
	}
	return ops
}
