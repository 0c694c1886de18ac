package netserver_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
)

// TestControl_Guard: the control interface serves only requests with the
// token, naming it by address or localhost (not a DNS name: rebinding),
// and from no foreign origin (a web page's cross-origin POST), and a
// refused request changes nothing.
func TestControl_Guard(t *testing.T) {
	url := newControl(t)
	port := url[strings.LastIndex(url, ":"):]
	for _, tc := range []struct {
		name   string
		header []string
		code   int
	}{
		{"the token", nil, http.StatusOK},
		{"no token", []string{"Authorization", ""}, http.StatusUnauthorized},
		{"a wrong token", []string{"Authorization", "Bearer " + strings.Repeat("0", len(testToken))}, http.StatusUnauthorized},
		{"basic auth", []string{"Authorization", "Basic " + testToken}, http.StatusUnauthorized},
		{"a DNS name", []string{"Host", "rebind.example" + port}, http.StatusForbidden},
		{"localhost", []string{"Host", "localhost" + port}, http.StatusOK},
		{"a foreign origin", []string{"Origin", "http://evil.example"}, http.StatusForbidden},
		{"its own origin", []string{"Origin", url}, http.StatusOK},
		{"a cross-site fetch", []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
	} {
		if code, body := doHost(t, "POST", url+"/faults", "lose-request:op=get", tc.header...); code != tc.code {
			t.Errorf("POST /faults with %s = %d %q, want %d", tc.name, code, body, tc.code)
		}
	}
	// Only the three accepted requests armed a fault.
	if _, body := do(t, "GET", url+"/faults", ""); strings.Count(body, "\n") != 3 {
		t.Errorf("GET /faults = %q, want the 3 accepted faults", body)
	}
}

// TestControl_EmptyTokenRefusesAll: a Handler without a token serves
// nobody, rather than everybody.
func TestControl_EmptyTokenRefusesAll(t *testing.T) {
	ts := httptest.NewServer(newServer(t).Handler(""))
	t.Cleanup(ts.Close)
	for _, auth := range []string{"", "Bearer ", "Bearer"} {
		if code, _ := do(t, "GET", ts.URL+"/", "", "Authorization", auth); code != http.StatusUnauthorized {
			t.Errorf("GET / with Authorization %q = %d, want 401", auth, code)
		}
	}
}

// doHost is do, with a "Host" header setting the request's Host.
func doHost(t *testing.T, method, url, body string, header ...string) (int, string) {
	t.Helper()
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			return doReq(t, method, url, body, header[i+1], append(header[:i:i], header[i+2:]...)...)
		}
	}
	return do(t, method, url, body, header...)
}

func doReq(t *testing.T, method, url, body, host string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Authorization", "Bearer "+testToken)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestControl_TreeFollowsACLs: /tree lists the children of a node only
// if world:anyone may READ it, as getChildren does for a client without
// credentials (ZooKeeper's FinalRequestProcessor checks READ on the
// parent for getChildren); exists needs no permission, so the protected
// node itself is listed.
//
// With X-Zksim-Digest credentials /tree shows what a client holding them
// would list, and the super user's (-super-digest) see everything.
func TestControl_TreeFollowsACLs(t *testing.T) {
	srv, err := netserver.New(netserver.Config{Machine: machine.Config{TickMillis: 100, SuperDigest: suiteSuperDigest}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	addr, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := zk.Connect([]string{addr.String()}, 2*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if err := c.AddAuth("digest", []byte("owner:pw")); err != nil {
		t.Fatal(err)
	}
	for _, n := range []struct {
		path string
		acl  []zk.ACL
	}{
		{"/secret", zk.DigestACL(zk.PermAll, "owner", "pw")},
		{"/secret/lock-0000000001", zk.WorldACL(zk.PermAll)},
		{"/open", zk.WorldACL(zk.PermAll)},
		{"/open/child", zk.WorldACL(zk.PermAll)},
	} {
		if _, err := c.Create(n.path, nil, 0, n.acl); err != nil {
			t.Fatalf("create %s: %v", n.path, err)
		}
	}
	ts := httptest.NewServer(srv.Handler(testToken))
	t.Cleanup(ts.Close)
	_, tree := do(t, "GET", ts.URL+"/tree", "")
	for _, p := range []string{"/secret ", "/open ", "/open/child "} {
		if !strings.Contains(tree, "\n"+p) {
			t.Errorf("/tree lacks %s:\n%s", p, tree)
		}
	}
	if strings.Contains(tree, "lock-") {
		t.Errorf("/tree lists a child of /secret, whose ACL denies world READ:\n%s", tree)
	}
	for _, tc := range []struct {
		creds string
		sees  bool
	}{
		{"owner:pw", true},
		{"owner:wrong", false},
		{"super:test", true},
		{"super:wrong", false},
	} {
		_, tree := do(t, "GET", ts.URL+"/tree", "", "X-Zksim-Digest", tc.creds)
		if got := strings.Contains(tree, "\n/secret/lock-0000000001 "); got != tc.sees {
			t.Errorf("/tree as %s lists /secret's child: %v, want %v:\n%s", tc.creds, got, tc.sees, tree)
		}
	}
}
