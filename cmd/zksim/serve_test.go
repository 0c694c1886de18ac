package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/internal/machine"
)

func TestServe_Usage(t *testing.T) {
	noServer := filepath.Join(t.TempDir(), "jaas.conf")
	if err := os.WriteFile(noServer, []byte(`Client { m required user_a="b"; };`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-tick", "0"}, "-tick must be 1-60000 ms"},
		{[]string{"-followers", "11"}, "-followers must be 0-10"},
		{[]string{"-overflow", "up"}, `-overflow must be pin or wrap, got "up"`},
		{[]string{"-max-frame", "10"}, "-max-frame must be at least 1024"},
		{[]string{"-frame-budget", "-1"}, "-frame-budget must be 0 or at least -max-frame (1048575), got -1"},
		{[]string{"-max-frame", "2000000", "-frame-budget", "1999999"}, "-frame-budget must be 0 or at least -max-frame (2000000)"},
		{[]string{"-max-session-watches", "-1"}, "-max-session-watches and -max-watches must be >= 0, got -1 and 2000000"},
		{[]string{"-max-watches", "-5"}, "-max-session-watches and -max-watches must be >= 0, got 100000 and -5"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"-faults", "lose-reply:op=crate"}, `unknown op "crate"`},
		{[]string{"-faults", "lose-reply:path=locks/"}, `path "locks/" is not absolute`},
		{[]string{"-faults", "expire"}, "missing session=ID"},
		{[]string{"-faults", "delay-watches:d=soon"}, `d "soon" is not a duration`},
		{[]string{"-faults", "explode"}, `unknown kind "explode"`},
		{[]string{"-faults", "expire:session=0x1234"}, "no live session 0x1234"},
		{[]string{"-addr", "nowhere"}, `-addr "nowhere" is not HOST:PORT`},
		{[]string{"-container-check", "0"}, "-container-check must be at least 1 ms, got 0"},
		{[]string{"-super-digest", "super:test"}, `-super-digest must be USER:DIGEST`},
		{[]string{"-super-digest", "D/InIHSb7yEEbrWz8b9l71RjZJU="}, `-super-digest must be USER:DIGEST`},
		{[]string{"-sasl-users", filepath.Join(t.TempDir(), "none")}, "-sasl-users: open "},
		{[]string{"-sasl-users", noServer}, "-sasl-users: " + noServer + ": netserver: bad JAAS configuration: no Server section"},
	} {
		var stdout, stderr bytes.Buffer
		code := serve(context.Background(), tc.args, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("serve %q = %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// TestServe_FrameBudgetFlag: -frame-budget reaches the server's config,
// 0 meaning no limit, and its absence leaves the server's default (which
// grows to a -max-frame above it).
func TestServe_FrameBudgetFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, 0},
		{[]string{"-max-frame", "100000000"}, 0},
		{[]string{"-frame-budget", "0"}, -1},
		{[]string{"-frame-budget", "2000000"}, 2000000},
	} {
		var stderr bytes.Buffer
		c, code := parseServe(tc.args, &stderr)
		if code >= 0 || c.srv.FrameBudget != tc.want {
			t.Errorf("parseServe %q: exit %d, FrameBudget %d; want it to go on with %d (%s)", tc.args, code, c.srv.FrameBudget, tc.want, stderr.String())
		}
	}
}

// TestServe_TTLFlags: TTL nodes are off unless -extended-types, as
// zookeeper.extendedTypesEnabled is; -emulate353-ttl reaches the config;
// -container-check sets the reaper's period in whole ticks (60 s, as
// znode.container.checkIntervalMs, by default).
func TestServe_TTLFlags(t *testing.T) {
	for _, tc := range []struct {
		args         []string
		ext, emulate bool
		checkTicks   int
	}{
		{nil, false, false, 30},
		{[]string{"-tick", "500"}, false, false, 120},
		{[]string{"-extended-types", "-emulate353-ttl", "-tick", "500", "-container-check", "1000"}, true, true, 2},
		{[]string{"-extended-types", "-container-check", "1"}, true, false, 1},
	} {
		var stderr bytes.Buffer
		c, code := parseServe(tc.args, &stderr)
		m := c.srv.Machine
		if code >= 0 || m.ExtendedTypes != tc.ext || m.EmulateTTL353 != tc.emulate || m.ContainerCheckTicks != tc.checkTicks {
			t.Errorf("parseServe %q: exit %d, ExtendedTypes %v EmulateTTL353 %v ContainerCheckTicks %d; want %v %v %d (%s)",
				tc.args, code, m.ExtendedTypes, m.EmulateTTL353, m.ContainerCheckTicks, tc.ext, tc.emulate, tc.checkTicks, stderr.String())
		}
	}
}

func TestServe_AddressInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var stdout, stderr bytes.Buffer
	if code := serve(context.Background(), []string{"-addr", l.Addr().String()}, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "-addr: listen tcp") {
		t.Errorf("serve on a taken port = %d, stderr %q; want 1 naming -addr", code, stderr.String())
	}
}

// TestServe_ClientAndControl starts zksim serve with a lost delete armed
// by -faults, connects go-zookeeper to the address it prints, arms a lost
// reply through the control interface and sees the lost create (the
// client gets a closed connection, and the node exists once it is back),
// then the lost delete (the node is still there).
// TestServe_SuperDigestFlag: -super-digest reaches the Machine, where a
// client authenticated as that user passes every ACL check.
func TestServe_SuperDigestFlag(t *testing.T) {
	const digest = "super:D/InIHSb7yEEbrWz8b9l71RjZJU=" // super:test
	var stderr bytes.Buffer
	c, code := parseServe([]string{"-super-digest", digest}, &stderr)
	if code >= 0 || c.srv.Machine.SuperDigest != digest {
		t.Fatalf("parseServe: exit %d, SuperDigest %q (%s)", code, c.srv.Machine.SuperDigest, stderr.String())
	}
}

// TestServe_SASLUsersFlag: -sasl-users gives the server the users of
// the JAAS file's Server section (kazoo's harness's file here).
func TestServe_SASLUsersFlag(t *testing.T) {
	file := filepath.Join(t.TempDir(), "jaas.conf")
	jaas := `Server {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    user_super="super_secret"
    user_jaasuser="jaas_password";
};`
	if err := os.WriteFile(file, []byte(jaas), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	c, code := parseServe([]string{"-sasl-users", file}, &stderr)
	want := map[string]string{"super": "super_secret", "jaasuser": "jaas_password"}
	if code >= 0 || !maps.Equal(c.srv.SASLUsers, want) {
		t.Fatalf("parseServe: exit %d, SASLUsers %v, want %v (%s)", code, c.srv.SASLUsers, want, stderr.String())
	}
	if c, _ := parseServe(nil, &stderr); c.srv.SASLUsers != nil {
		t.Errorf("without -sasl-users: SASLUsers %v, want nil", c.srv.SASLUsers)
	}
}

func TestServe_ClientAndControl(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, w := io.Pipe()
	done := make(chan int)
	go func() {
		var stderr bytes.Buffer
		done <- serve(ctx, []string{"-tick", "200", "-followers", "1", "-faults", "drop-request:op=delete,path=/lost"}, w, &stderr) // the old spelling
		w.Close()
	}()
	addrs := map[string]string{}
	sc := bufio.NewScanner(out)
	for len(addrs) < 4 && sc.Scan() {
		if token, ok := strings.CutPrefix(sc.Text(), "zksim serve: control token "); ok {
			addrs["token"] = token
			continue
		}
		role, addr, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "zksim serve: "), " on ")
		if !ok {
			t.Fatalf("unexpected line %q", sc.Text())
		}
		addrs[role] = addr
	}
	if addrs["leader"] == "" || addrs["follower 1"] == "" || !strings.HasPrefix(addrs["control"], "http://") || len(addrs["token"]) != 32 {
		t.Fatalf("printed addresses %v", addrs)
	}
	go io.Copy(io.Discard, out)

	conn, _, err := zk.Connect([]string{addrs["leader"]}, 4*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	token := addrs["token"]
	post(t, addrs["control"]+"/faults", token, "lose-reply:op=create,path=/lost")
	if _, err := conn.Create("/lost", []byte("x"), 0, zk.WorldACL(zk.PermAll)); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("create with its reply dropped: %v, want %v", err, zk.ErrConnectionClosed)
	}
	if ok, err := existsOnceBack(conn, "/lost"); err != nil || !ok {
		t.Fatalf("after the lost reply: exists = %v, %v; want the node applied", ok, err)
	}
	// A follower has caught up by the time the leader has answered.
	follower, _, err := zk.Connect([]string{addrs["follower 1"]}, 4*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		t.Fatal(err)
	}
	defer follower.Close()
	if _, err := existsOnceBack(follower, "/"); err != nil { // its session is up
		t.Fatal(err)
	}
	if _, err := conn.Create("/fresh", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if ok, err := existsOnceBack(follower, "/fresh"); err != nil || !ok {
		t.Fatalf("the follower after a create on the leader: exists = %v, %v; want it caught up", ok, err)
	}
	if _, st, err := conn.Exists("/lost"); err != nil || st.Ctime < machine.DefaultEpochMillis || st.Mtime != st.Ctime {
		t.Fatalf("/lost: ctime %d mtime %d (%v), want epoch milliseconds from %d", st.Ctime, st.Mtime, err, machine.DefaultEpochMillis)
	}
	// The -faults rule armed at start: the delete is lost before it is applied.
	if err := conn.Delete("/lost", -1); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("delete with its request dropped: %v, want %v", err, zk.ErrConnectionClosed)
	}
	if ok, err := existsOnceBack(conn, "/lost"); err != nil || !ok {
		t.Fatalf("after the lost delete: exists = %v, %v; want the node kept", ok, err)
	}
	if got := get(t, addrs["control"]+"/faults", token); got != "" {
		t.Errorf("/faults after both rules fired = %q, want nothing armed", got)
	}
	if got := get(t, addrs["control"]+"/sessions", token); !strings.Contains(got, "client=127.0.0.1:") {
		t.Errorf("/sessions = %q, want the connected client", got)
	}
	if got := get(t, addrs["control"]+"/tree", token); !strings.Contains(got, "/lost dl=1 v=0 eph=-\n") {
		t.Errorf("/tree = %q, want /lost", got)
	}
	if code, _ := send(t, "POST", addrs["control"]+"/faults", token, "lose-reply:op=nope"); code != http.StatusBadRequest {
		t.Errorf("bad spec: status %d, want 400", code)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d after its context ended, want 0", code)
	}
}

// existsOnceBack is Exists once the client has reconnected. With a single
// server, go-zookeeper fails a request queued while it starts to reconnect
// with ErrNoServer (it has tried "every" server), which is only a
// connection loss; a few tries cover it.
func existsOnceBack(conn *zk.Conn, p string) (bool, error) {
	for try := 0; ; try++ {
		ok, _, err := conn.Exists(p)
		if try == 5 || !errors.Is(err, zk.ErrNoServer) && !errors.Is(err, zk.ErrConnectionClosed) {
			return ok, err
		}
	}
}

func post(t *testing.T, url, token, body string) {
	t.Helper()
	if code, b := send(t, "POST", url, token, body); code != http.StatusOK {
		t.Fatalf("POST %s %q: %d %s", url, body, code, b)
	}
}

func get(t *testing.T, url, token string) string {
	t.Helper()
	_, b := send(t, "GET", url, token, "")
	return b
}

// send makes one control request with token (none if empty) and returns
// the status and body.
func send(t *testing.T, method, url, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// quiet drops go-zookeeper's log lines (its reconnects are expected here).
type quiet struct{}

func (quiet) Printf(string, ...any) {}

// TestServe_ReconfigFlag: -reconfig reaches the server's config, off by
// default as reconfigEnabled is in 3.8.
func TestServe_ReconfigFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{{nil, false}, {[]string{"-reconfig"}, true}} {
		var stderr bytes.Buffer
		c, code := parseServe(tc.args, &stderr)
		if code >= 0 || c.srv.Reconfig != tc.want {
			t.Errorf("parseServe %q: exit %d, Reconfig %v; want %v (%s)", tc.args, code, c.srv.Reconfig, tc.want, stderr.String())
		}
	}
}
