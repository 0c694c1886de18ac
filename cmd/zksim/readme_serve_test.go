package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/fakezk/netserver"
	"github.com/zksim/zksim/zktest"
)

// readmeCurl is one curl line of the README's serve section: curl -H
// "$H" [-X METHOD] [-d 'BODY'] URL.
var readmeCurl = regexp.MustCompile(`^curl -H "\$H"(?: -X (\w+))?(?: -d '([^']*)')? http://127\.0\.0\.1:40124(\S*)`)

// TestReadme_ServeCurls sends every control request of the README's serve
// section, with the README's header carrying the server's token, to a
// server whose first session is the one the README names: each is routed
// and authorized (not 401, 403, 405 or unrouted), and the same request
// without the token is refused.
func TestReadme_ServeCurls(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	srv, addr := zktest.ServeFake(t, netserver.Config{Machine: fakezk.Config{TickMillis: 500}})
	conn := dial(t, addr)
	defer conn.Close()
	const token = "3f1d0c9a8b7e6f5d4c3b2a1908f7e6d5" // the README's
	ts := httptest.NewServer(srv.Handler(token))
	t.Cleanup(ts.Close)
	header := ""
	n := 0
	for _, line := range strings.Split(string(readme), "\n") {
		if h, ok := strings.CutPrefix(line, "H='"); ok {
			header, _, _ = strings.Cut(h, "'")
		}
		m := readmeCurl.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n++
		method := m[1]
		if method == "" {
			method = map[bool]string{true: "POST", false: "GET"}[m[2] != ""]
		}
		auth, _ := strings.CutPrefix(header, "Authorization: ")
		code, body := send(t, method, ts.URL+m[3], strings.TrimPrefix(auth, "Bearer "), m[2])
		if code == http.StatusUnauthorized || code == http.StatusForbidden || code == http.StatusMethodNotAllowed || body == "404 page not found\n" {
			t.Errorf("README %q: %d %q", line, code, body)
		}
		if code, _ := send(t, method, ts.URL+m[3], "", m[2]); code != http.StatusUnauthorized {
			t.Errorf("README %q without the token: %d, want 401", line, code)
		}
	}
	if n < 10 || header == "" {
		t.Fatalf("found %d curl lines and header %q in the README, want the serve section's", n, header)
	}
}
