package main

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/zktest"
)

// docCurl is one curl line of a page showing serve (the README,
// docs/serve.md): curl -H
// "$H" [-X METHOD] [-d 'BODY'] URL.
var docCurl = regexp.MustCompile(`^curl -H "\$H"(?: -X (\w+))?(?: -d '([^']*)')? http://127\.0\.0\.1:40124(\S*)`)

// TestDocs_ServeCurls sends every control request of each page showing
// serve (the README, docs/serve.md), with the page's header carrying the
// server's token, to a server of its own whose first session is the one
// the pages name: each is routed and authorized (not 401, 403, 405 or
// unrouted), and the same request without the token is refused.
func TestDocs_ServeCurls(t *testing.T) {
	for _, file := range docFiles(t) {
		n, header := serveCurls(t, file)
		if file == "README.md" && (n < 2 || header == "") || file == "docs/serve.md" && (n < 10 || header == "") {
			t.Errorf("found %d curl lines and header %q in %s, want its serve section's", n, header, file)
		}
	}
}

// serveCurls sends the control requests of one page, as
// TestDocs_ServeCurls says, and returns how many and the header.
func serveCurls(t *testing.T, file string) (n int, header string) {
	t.Helper()
	lines := strings.Split(readDoc(t, file), "\n")
	if !slices.ContainsFunc(lines, docCurl.MatchString) {
		return 0, ""
	}
	srv, addr := zktest.ServeFake(t, netserver.Config{Machine: machine.Config{TickMillis: 500}})
	conn := dial(t, addr)
	defer conn.Close()
	const token = "3f1d0c9a8b7e6f5d4c3b2a1908f7e6d5" // the pages'
	ts := httptest.NewServer(srv.Handler(token))
	defer ts.Close()
	for _, line := range lines {
		if h, ok := strings.CutPrefix(line, "H='"); ok {
			header, _, _ = strings.Cut(h, "'")
		}
		m := docCurl.FindStringSubmatch(line)
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
			t.Errorf("%s %q: %d %q", file, line, code, body)
		}
		if code, _ := send(t, method, ts.URL+m[3], "", m[2]); code != http.StatusUnauthorized {
			t.Errorf("%s %q without the token: %d, want 401", file, line, code)
		}
	}
	return n, header
}
