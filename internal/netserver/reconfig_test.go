package netserver_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/wire"
)

// The reconfig scenario runs on a 3-member ensemble with reconfig enabled
// whose super user is go-zookeeper's suite's (super:test), through
// go-zookeeper as its TestIntegration_IncrementalReconfig and
// TestIntegration_Reconfig do, and notes each answer with the addresses
// and zxids abstracted away. Recorded from 3.8.0 with
//
//	ZK_CFG="reconfigEnabled=true" ZK_JVMFLAGS="-Dzookeeper.DigestAuthenticationProvider.superDigest=super:D/InIHSb7yEEbrWz8b9l71RjZJU=" \
//	  scripts/zk.sh start DIR 3
//	ZKSIM_ZK_RECONFIG=$(cat DIR/addrs) go test ./fakezk/netserver -run TestReconfig_Real -update
//
// into testdata/reconfig.golden; TestReconfig_Fake replays it on the fake.
const (
	reconfigGolden = "testdata/reconfig.golden"
	envReconfig    = "ZKSIM_ZK_RECONFIG"
	// suiteSuperDigest is super:test's digest, go-zookeeper's suite's.
	suiteSuperDigest = "super:D/InIHSb7yEEbrWz8b9l71RjZJU="
)

// reconfigScenario runs the steps on c (connected to the first member
// only) and returns one line per step.
func reconfigScenario(t *testing.T, c *zk.Conn) []string {
	t.Helper()
	var lines []string
	var lastMzxid int64
	note := func(step string, st *zk.Stat, err error) {
		if err != nil {
			lines = append(lines, fmt.Sprintf("%s: %s", step, errName(err)))
			return
		}
		lines = append(lines, fmt.Sprintf("%s: ok %s", step, statNote(st, &lastMzxid)))
	}
	get := func(step string) {
		data, st, err := c.Get("/zookeeper/config")
		if err != nil {
			lines = append(lines, fmt.Sprintf("%s: %s", step, errName(err)))
			return
		}
		lines = append(lines, fmt.Sprintf("%s: %s | %s", step, configNote(data, st), statNote(st, &lastMzxid)))
	}
	get("get")
	st, err := c.IncrementalReconfig(nil, []string{"9"}, -1)
	note("leave 9 unauthenticated", st, err)
	st, err = c.IncrementalReconfig(nil, []string{"3"}, 0x12345)
	note("leave 3 unauthenticated at a stale config version", st, err)
	st, err = c.IncrementalReconfig([]string{"bogus"}, nil, -1)
	note("join bogus unauthenticated", st, err)
	st, err = c.IncrementalReconfig(nil, []string{"x"}, -1)
	note("leave x unauthenticated", st, err)
	st, err = c.Reconfig(nil, -1)
	note("non-incremental, empty, unauthenticated", st, err)
	st, err = c.Reconfig([]string{"server.4=127.0.0.1:17001:17002;17003"}, -1)
	note("non-incremental, only 4 (not running), unauthenticated", st, err)
	if err := c.AddAuth("digest", []byte("super:test")); err != nil {
		t.Fatal(err)
	}
	st, err = c.IncrementalReconfig(nil, []string{"3"}, 0x12345)
	note("leave 3 at a stale config version", st, err)
	st, err = c.IncrementalReconfig([]string{"bogus"}, nil, 0x12345)
	note("join bogus at a stale config version", st, err)
	st, err = c.Reconfig([]string{"server.4=127.0.0.1:17001:17002;17003"}, 0x12345)
	note("non-incremental, only 4 (not running), at a stale config version", st, err)
	st, err = c.IncrementalReconfig(nil, []string{"9"}, -1)
	note("leave 9 (not a member)", st, err)
	get("get")
	_, cur, _ := c.Get("/zookeeper/config")
	st, err = c.IncrementalReconfig(nil, []string{"9"}, cur.Mzxid)
	note("leave 9 at the current config version", st, err)
	st, err = c.IncrementalReconfig(nil, []string{"x"}, -1)
	note("leave x", st, err)
	st, err = c.IncrementalReconfig([]string{"bogus"}, nil, -1)
	note("join bogus", st, err)
	st, err = c.IncrementalReconfig([]string{"server.4=127.0.0.1:1"}, nil, -1)
	note("join a server without an election port", st, err)
	st, err = c.IncrementalReconfig([]string{"server.4=127.0.0.1:17001:17002;17003"}, nil, -1)
	note("join 4 (not running)", st, err)
	get("get")
	st, err = c.IncrementalReconfig(nil, []string{"4"}, -1)
	note("leave 4", st, err)
	get("get")
	st, err = c.Reconfig(nil, -1)
	note("non-incremental, empty", st, err)
	st, err = c.Reconfig([]string{"server.4=127.0.0.1:17001:17002;17003"}, -1)
	note("non-incremental, only 4 (not running)", st, err)
	data, _, _ := c.Get("/zookeeper/config")
	var members []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "server.") {
			members = append(members, l+"\n")
		}
	}
	st, err = c.Reconfig(members, -1)
	note("non-incremental, the same members", st, err)
	get("get")
	return lines
}

func errName(err error) string {
	var code zk.ErrCode
	for c, e := range zkErrs {
		if errors.Is(err, e) {
			code = c
		}
	}
	if code != 0 {
		return fmt.Sprintf("error %d", code)
	}
	if m := regexp.MustCompile(`unknown error: (-?\d+)`).FindStringSubmatch(err.Error()); m != nil {
		return "error " + m[1]
	}
	return "error " + err.Error()
}

// zkErrs are the codes the scenario can meet.
var zkErrs = map[zk.ErrCode]error{
	-8: zk.ErrBadArguments, -102: zk.ErrNoAuth, -103: zk.ErrBadVersion,
	-123: zk.ErrReconfigDisabled, -4: zk.ErrConnectionClosed,
}

// statNote abstracts a config stat: whether it moved on since the last
// one seen, and the fields that do not depend on when it ran.
func statNote(st *zk.Stat, last *int64) string {
	moved := st.Mzxid > *last
	*last = st.Mzxid
	return fmt.Sprintf("moved=%v version=%d aversion=%d czxid=%d ctime=%d cversion=%d children=%d mtime>0=%v",
		moved, st.Version, st.Aversion, st.Czxid, st.Ctime, st.Cversion, st.NumChildren, st.Mtime > 0)
}

var (
	host = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+`)
	port = regexp.MustCompile(`:\d+`)
)

// configNote abstracts the config data: addresses as H:P, and whether its
// version line is the hex of the stat's mzxid.
func configNote(data []byte, st *zk.Stat) string {
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "version="); ok {
			l = "version=" + strconv.FormatBool(v == strconv.FormatInt(st.Mzxid, 16)) + "(is mzxid)"
		}
		out = append(out, port.ReplaceAllString(host.ReplaceAllString(l, "H"), ":P"))
	}
	return fmt.Sprintf("%q len ok=%v", strings.Join(out, "\n"), int(st.DataLength) == len(data))
}

func connectOne(t *testing.T, addr string) *zk.Conn {
	t.Helper()
	c, _ := connect(t, addr)
	return c
}

func TestReconfig_Real(t *testing.T) {
	addrs := os.Getenv(envReconfig)
	if addrs == "" {
		t.Skipf("set %s to the addresses of a 3.8 ensemble with reconfigEnabled and super:test (see reconfig_test.go)", envReconfig)
	}
	c := connectOne(t, strings.Split(addrs, ",")[0])
	got := strings.Join(reconfigScenario(t, c), "\n") + "\n"
	if *update {
		if err := os.WriteFile(reconfigGolden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	checkGolden(t, got)
}

func checkGolden(t *testing.T, got string) {
	t.Helper()
	want, err := os.ReadFile(filepath.FromSlash(reconfigGolden))
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("reconfig scenario:\n%s\nrecorded from 3.8.0 (%s):\n%s", got, reconfigGolden, want)
	}
}

func TestReconfig_Fake(t *testing.T) {
	_, addrs := newEnsembleWith(t, netserver.Config{
		Machine: machine.Config{TickMillis: 500, Followers: 2, EpochMillis: machine.DefaultEpochMillis, SuperDigest: suiteSuperDigest}, Reconfig: true,
	})
	checkGolden(t, strings.Join(reconfigScenario(t, connectOne(t, addrs[0])), "\n")+"\n")
}

// TestReconfig_Disabled: without Config.Reconfig, as by default in 3.8,
// reconfig is refused with ReconfigDisabled, even for the super user.
func TestReconfig_Disabled(t *testing.T) {
	_, addrs := newEnsembleWith(t, netserver.Config{Machine: machine.Config{TickMillis: 500, Followers: 2, SuperDigest: suiteSuperDigest}})
	c := connectOne(t, addrs[0])
	if err := c.AddAuth("digest", []byte("super:test")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.IncrementalReconfig(nil, []string{"3"}, -1); !errors.Is(err, zk.ErrReconfigDisabled) {
		t.Fatalf("reconfig without Config.Reconfig: %v, want ReconfigDisabled", err)
	}
}

// TestReconfig_Standalone: a standalone server with reconfigEnabled
// answers Unimplemented, before checking the caller (measured on 3.8.0).
func TestReconfig_Standalone(t *testing.T) {
	_, addrs := newEnsembleWith(t, netserver.Config{Machine: machine.Config{TickMillis: 500, SuperDigest: suiteSuperDigest}, Reconfig: true})
	c := connectOne(t, addrs[0])
	if _, err := c.IncrementalReconfig(nil, []string{"9"}, -1); err == nil || !strings.Contains(err.Error(), "-6") {
		t.Fatalf("reconfig on a standalone server: %v, want error -6 (Unimplemented)", err)
	}
}

// TestReconfig_RawFrames: every reconfig answer is a transaction: a
// refusal takes a zxid as an error transaction, a success answers the new
// config's data and Stat (a GetDataResponse), and an incremental reconfig
// with nothing joining or leaving still writes a new version. Measured on
// a 3.8.0 ensemble with raw frames: NoAuth at Z+1, success at Z+2 with a
// 4+len(data)+68-byte body, "leave x" MarshallingError at Z+3, all-null
// fields success at Z+4.
func TestReconfig_RawFrames(t *testing.T) {
	_, addrs := newEnsembleWith(t, netserver.Config{
		Machine: machine.Config{TickMillis: 500, Followers: 2, SuperDigest: suiteSuperDigest}, Reconfig: true,
	})
	c := dialRaw(t, addrs[0])
	c.handshake(10000, 0, nil)
	z, _ := c.zxid(1)
	reconfig := func(xid int32, leaving []byte) (int64, int32, int) {
		t.Helper()
		body := jb{}.null()
		if leaving == nil {
			body = body.null()
		} else {
			body = body.bytes(leaving)
		}
		c.write(req(xid, wire.OpReconfig, body.null().i64(-1)))
		b, err := c.frame(5 * time.Second)
		if err != nil {
			t.Fatalf("reconfig xid %d: %v", xid, err)
		}
		r := &jr{b: b}
		r.i32()
		return r.i64(), r.i32(), len(b) - 16
	}
	check := func(what string, zxid int64, code int32, body int, wantZ int64, wantCode int32, wantBody bool) {
		t.Helper()
		if zxid != wantZ || code != wantCode || (body > 0) != wantBody {
			t.Errorf("%s: zxid Z+%d err %d body %d bytes; want Z+%d err %d body %v", what, zxid-z, code, body, wantZ-z, wantCode, wantBody)
		}
	}
	zxid, code, body := reconfig(2, []byte("9"))
	check("unauthenticated", zxid, code, body, z+1, -102, false)
	c.write(req(-4, wire.OpAuth, jb{}.i32(0).str("digest").str("super:test")))
	if _, err := c.frame(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	zxid, code, body = reconfig(3, []byte("9"))
	check("leave 9", zxid, code, body, z+2, 0, true)
	zxid, code, body = reconfig(4, []byte("x"))
	check("leave x", zxid, code, body, z+3, wire.CodeMarshalling, false)
	zxid, code, body = reconfig(5, nil)
	check("all null", zxid, code, body, z+4, 0, true)
}
