package fakezk_test

import (
	"errors"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fakehook"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// u1ACL grants everything to whoever authenticates as digest u1:p1.
var u1ACL = []zkapi.ACL{{Perms: zkapi.PermAll, Scheme: "digest", ID: zkapi.DigestID("u1:p1")}}

func addAuth(t *testing.T, c fakezk.Conn, userPassword string) {
	t.Helper()
	if err := c.AddAuth(ctx, "digest", []byte(userPassword)); err != nil {
		t.Fatalf("addauth %s: %v", userPassword, err)
	}
}

func wantErr(t *testing.T, what string, got, want error) {
	t.Helper()
	if !errors.Is(got, want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

// TestACL_DigestGrantsReads: an unauthenticated read of a digest-protected
// node is refused, as on ZooKeeper (ZooKeeperServer.checkACL).
func TestACL_DigestGrantsReads(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	owner, other := connect(t, srv, fakezk.ConnOptions{}), connect(t, srv, fakezk.ConnOptions{})
	addAuth(t, owner, "u1:p1")
	if _, err := owner.CreateWithACL(ctx, "/d", []byte("x"), zkapi.Persistent, u1ACL); err != nil {
		t.Fatal(err)
	}
	_, _, err := other.Get(ctx, "/d")
	wantErr(t, "unauthenticated get", err, zkapi.ErrNoAuth)
	addAuth(t, other, "u1:p1")
	if _, _, err := other.Get(ctx, "/d"); err != nil {
		t.Fatalf("authenticated get: %v", err)
	}
}

// TestACL_AuthResentAfterReconnect: identities belong to the connection
// (Detach forgets them) and the Conn re-sends them, as go-zookeeper's
// resendZkAuth does, both to its old session and to a new one.
func TestACL_AuthResentAfterReconnect(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	c := connect(t, srv, fakezk.ConnOptions{})
	addAuth(t, c, "u1:p1")
	if _, err := c.CreateWithACL(ctx, "/d", nil, zkapi.Persistent, u1ACL); err != nil {
		t.Fatal(err)
	}
	id := c.Session().ID
	srv.Disconnect(id)
	srv.Reconnect(id)
	if _, _, err := c.Get(ctx, "/d"); err != nil {
		t.Fatalf("get after reconnect: %v", err)
	}
	srv.Expire(c.Session().ID)
	if _, _, err := c.Get(ctx, "/d"); err != nil {
		t.Fatalf("get on the new session: %v", err)
	}
	var ids []machine.AuthID
	cur := c.Session().ID
	fakehook.Inspect(srv, func(m *machine.Machine) {
		m.Detach(cur)
		ids = m.Identities(cur)
	})
	if len(ids) != 1 || ids[0] != (machine.AuthID{Scheme: "ip", ID: machine.DefaultAddress}) {
		t.Fatalf("identities after Detach = %v, want the ip one alone", ids)
	}
}

// TestACL_FailedAuthDropsConnection: an unknown scheme answers AuthFailed
// and the server closes the connection; the client reconnects to the same
// session, which keeps the identities added before.
func TestACL_FailedAuthDropsConnection(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	c := connect(t, srv, fakezk.ConnOptions{})
	addAuth(t, c, "u1:p1")
	if _, err := c.CreateWithACL(ctx, "/d", nil, zkapi.Persistent, u1ACL); err != nil {
		t.Fatal(err)
	}
	before := c.Session()
	wantErr(t, "addauth foo", c.AddAuth(ctx, "foo", []byte("bar")), zkapi.ErrAuthFailed)
	after := c.Session()
	if after.ID != before.ID || after.State != zkapi.StateConnected || after.Seq != before.Seq+2 {
		t.Fatalf("session %v -> %v, want Disconnected then Connected on the same session", before, after)
	}
	if _, _, err := c.Get(ctx, "/d"); err != nil {
		t.Fatalf("get after the failed auth: %v", err)
	}
}

// TestACL_SetACLChecksAdminBeforeVersion: PrepRequestProcessor's order,
// recorded from 3.8.0 in internal/conformance's acl.txt.
func TestACL_SetACLChecksAdminBeforeVersion(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	owner, other := connect(t, srv, fakezk.ConnOptions{}), connect(t, srv, fakezk.ConnOptions{})
	addAuth(t, owner, "u1:p1")
	if _, err := owner.CreateWithACL(ctx, "/d", nil, zkapi.Persistent, u1ACL); err != nil {
		t.Fatal(err)
	}
	_, err := other.SetACL(ctx, "/d", zkapi.OpenACL, 5)
	wantErr(t, "stale setACL without ADMIN", err, zkapi.ErrNoAuth)
	_, err = owner.SetACL(ctx, "/d", zkapi.OpenACL, 5)
	wantErr(t, "stale setACL with ADMIN", err, zkapi.ErrBadVersion)
	st, err := owner.SetACL(ctx, "/d", zkapi.OpenACL, 0)
	if err != nil || st.Aversion != 1 {
		t.Fatalf("setACL = %+v, %v; want aversion 1", st, err)
	}
	acl, _, err := other.GetACL(ctx, "/d")
	if err != nil || len(acl) != 1 || acl[0] != zkapi.OpenACL[0] {
		t.Fatalf("getACL = %v, %v", acl, err)
	}
}

// TestACL_WatchEventsNeedRead: a watcher without READ on the node loses
// its watch untold (NIOServerCnxn.process(event, acl), the fix for
// CVE-2024-23944 that Debian's 3.8.0 carries).
func TestACL_WatchEventsNeedRead(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	owner, other := connect(t, srv, fakezk.ConnOptions{}), connect(t, srv, fakezk.ConnOptions{})
	addAuth(t, owner, "u1:p1")
	if _, err := owner.CreateWithACL(ctx, "/d", nil, zkapi.Persistent, u1ACL); err != nil {
		t.Fatal(err)
	}
	w := existsW(t, other, "/d")
	if _, err := owner.Set(ctx, "/d", []byte("y"), -1); err != nil {
		t.Fatal(err)
	}
	if ev, ok := fired(t, w); ok {
		t.Fatalf("a watcher without READ was told %v", ev)
	}
	var n int
	id := other.Session().ID
	fakehook.Inspect(srv, func(m *machine.Machine) { n = m.SessionWatchCount(id) })
	if n != 0 {
		t.Fatalf("the filtered watch is still held (%d watches)", n)
	}
}

// TestACL_SuperDigestPassesEverything: Config.SuperDigest is
// zookeeper.DigestAuthenticationProvider.superDigest.
func TestACL_SuperDigestPassesEverything(t *testing.T) {
	srv := newServer(t, fakezk.Config{SuperDigest: zkapi.DigestID("super:test")})
	owner, root := connect(t, srv, fakezk.ConnOptions{}), connect(t, srv, fakezk.ConnOptions{})
	addAuth(t, owner, "u1:p1")
	if _, err := owner.CreateWithACL(ctx, "/d", nil, zkapi.Persistent, u1ACL[:1:1]); err != nil {
		t.Fatal(err)
	}
	addAuth(t, root, "super:test")
	if _, _, err := root.Get(ctx, "/d"); err != nil {
		t.Fatalf("super get: %v", err)
	}
	_, err := root.Set(ctx, "/zookeeper/config", nil, 12345)
	wantErr(t, "super set of /zookeeper/config with a bad version", err, zkapi.ErrBadVersion)
}

// TestACL_IPScheme matches the session's address against address/prefix
// entries (IPAuthenticationProvider.matches).
func TestACL_IPScheme(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	c := connect(t, srv, fakezk.ConnOptions{})
	id := c.Session().ID
	for _, tc := range []struct {
		addr, acl string
		ok        bool
	}{
		{"127.0.0.1", "ip:127.0.0.1:r", true},
		{"127.0.0.1", "ip:127.0.0.0/8:r", true},
		{"127.0.0.1", "ip:10.0.0.0/8:r", false},
		{"10.1.2.3", "ip:10.0.0.0/8:r", true},
		{"10.1.2.3", "ip:10.1.2.0/23:r", true},
		{"10.1.4.3", "ip:10.1.2.0/23:r", false},
		{"::1", "ip:0.0.0.0/0:r", false},
	} {
		acl, err := proto.ParseACL(tc.acl)
		if err != nil {
			t.Fatal(err)
		}
		fakehook.Inspect(srv, func(m *machine.Machine) { m.SetAddress(id, "127.0.0.1") })
		p, err := c.CreateWithACL(ctx, "/ip-", nil, zkapi.PersistentSequential, acl)
		if err != nil {
			t.Fatal(err)
		}
		fakehook.Inspect(srv, func(m *machine.Machine) { m.SetAddress(id, tc.addr) })
		_, _, err = c.Get(ctx, p)
		if got := err == nil; got != tc.ok {
			t.Errorf("client %s, ACL %s: get = %v, want allowed %v", tc.addr, tc.acl, err, tc.ok)
		}
	}
}

// TestFingerprint_SeesACLs: two trees differing only in an ACL answer
// differently, so a search must not take them for one state.
func TestFingerprint_SeesACLs(t *testing.T) {
	fp := func(acl []zkapi.ACL) uint64 {
		m, err := machine.NewMachine(machine.Config{})
		if err != nil {
			t.Fatal(err)
		}
		s, _ := m.CreateSession(0, 4000)
		if r := m.Do(s.ID, proto.Create{Path: "/a", ACL: acl}); r.Err != nil {
			t.Fatal(r.Err)
		}
		return m.Fingerprint()
	}
	if fp(nil) == fp([]zkapi.ACL{{Perms: zkapi.PermRead, Scheme: "world", ID: "anyone"}}) {
		t.Fatal("an open and a read-only node hash alike")
	}
}
