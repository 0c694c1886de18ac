package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// startServe runs serve with args until the test ends, and returns what
// it printed up to the control line ("leader", "control", "token"), and a
// function that stops it and returns its stderr.
func startServe(t *testing.T, args ...string) (map[string]string, func() string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, w := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, args, w, &stderr)
		w.Close()
	}()
	stop := sync.OnceValue(func() string {
		cancel()
		<-done
		return stderr.String()
	})
	t.Cleanup(func() { stop() })
	lines := map[string]string{}
	sc := bufio.NewScanner(out)
	for lines["control"] == "" && sc.Scan() {
		line := strings.TrimPrefix(sc.Text(), "zksim serve: ")
		if token, ok := strings.CutPrefix(line, "control token "); ok {
			lines["token"] = token
		} else if role, addr, ok := strings.Cut(line, " on "); ok {
			lines[role] = addr
		}
	}
	go io.Copy(io.Discard, out)
	if lines["control"] == "" {
		t.Fatalf("serve %q printed %v; stderr %q", args, lines, stop())
	}
	return lines, stop
}

// TestServe_ControlGuarded: a session survives control requests without
// the token, with a foreign Origin (a web page's cross-origin POST) or
// a DNS name as Host, and is expired by one with the token, read from
// -control-token-file and printed at start.
func TestServe_ControlGuarded(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lines, _ := startServe(t, "-tick", "200", "-control-token-file", file)
	if lines["token"] != "s3cret-token" {
		t.Fatalf("printed token %q, want the file's", lines["token"])
	}
	conn, _, err := zk.Connect([]string{lines["leader"]}, 4*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := existsOnceBack(conn, "/"); err != nil {
		t.Fatal(err)
	}
	id := strings.Fields(get(t, lines["control"]+"/sessions", lines["token"]) + " -")[0]
	expire := "expire:session=" + id
	url := lines["control"] + "/faults"
	for _, tc := range []struct {
		name   string
		header []string
		code   int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"a wrong token", []string{"Authorization", "Bearer guess"}, http.StatusUnauthorized},
		{"a web page's POST", []string{"Authorization", "Bearer s3cret-token", "Origin", "http://evil.example"}, http.StatusForbidden},
		{"a rebound DNS name", []string{"Authorization", "Bearer s3cret-token", "Host", "evil.example"}, http.StatusForbidden},
	} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(expire))
		for i := 0; i+1 < len(tc.header); i += 2 {
			req.Header.Set(tc.header[i], tc.header[i+1])
		}
		if i := slices.Index(tc.header, "Host"); i >= 0 {
			req.Host = tc.header[i+1]
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("%s: POST %q = %d, want %d", tc.name, expire, resp.StatusCode, tc.code)
		}
	}
	if _, err := existsOnceBack(conn, "/"); err != nil {
		t.Fatalf("after refused requests the session is gone: %v", err)
	}
	if got := get(t, lines["control"]+"/sessions", lines["token"]); !strings.HasPrefix(got, id+" ") {
		t.Fatalf("after refused requests /sessions = %q, want session %s alive", got, id)
	}
	post(t, url, lines["token"], expire)
	if got := get(t, lines["control"]+"/sessions", lines["token"]); strings.Contains(got, id+" ") {
		t.Errorf("after the expire with the token /sessions = %q, want %s gone", got, id)
	}
}

// TestServe_ControlWarnsOffLoopback: -control on every interface is said
// loudly on stderr; on loopback nothing is.
func TestServe_ControlWarnsOffLoopback(t *testing.T) {
	for _, tc := range []struct {
		control string
		warn    bool
	}{{"127.0.0.1:0", false}, {"0.0.0.0:0", true}, {":0", true}} {
		_, stop := startServe(t, "-control", tc.control)
		if got := strings.Contains(stop(), "WARNING: the control interface listens on"); got != tc.warn {
			t.Errorf("-control %s: warned %v, want %v", tc.control, got, tc.warn)
		}
	}
}

// TestServe_FourLetterDefault: serve answers srvr and refuses dump (which
// lists sessions and their ephemerals) unless -4lw widens the list.
func TestServe_FourLetterDefault(t *testing.T) {
	for _, tc := range []struct {
		args []string
		dump string
	}{
		{nil, "dump is not executed because it is not in the whitelist.\n"},
		{[]string{"-4lw", "srvr,dump"}, "SessionTracker dump:"},
		{[]string{"-4lw", "*"}, "SessionTracker dump:"},
	} {
		lines, _ := startServe(t, tc.args...)
		if got := ask(t, lines["leader"], "dump"); !strings.HasPrefix(got, tc.dump) {
			t.Errorf("serve %q: dump = %q, want %q", tc.args, got, tc.dump)
		}
		if got := ask(t, lines["leader"], "srvr"); !strings.HasPrefix(got, "Zookeeper version:") {
			t.Errorf("serve %q: srvr = %q", tc.args, got)
		}
	}
}

// ask sends a four-letter word and returns the answer.
func ask(t *testing.T, addr, word string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, word)
	b, _ := io.ReadAll(c)
	return string(b)
}

// TestServe_SecurityFlags: -4lw reaches the whitelist (srvr by default,
// refused if it names no word), and -seed alone makes session passwords
// seeded.
func TestServe_SecurityFlags(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		words  []string
		seeded bool
	}{
		{nil, []string{"srvr"}, false},
		{[]string{"-4lw", "srvr, stat,ruok"}, []string{"srvr", "stat", "ruok"}, false},
		{[]string{"-4lw", "*", "-seed", "1"}, []string{"*"}, true},
		{[]string{"-seed", "7"}, []string{"srvr"}, true},
	} {
		var stderr bytes.Buffer
		c, code := parseServe(tc.args, &stderr)
		if code >= 0 || !slices.Equal(c.srv.FourLetterWords, tc.words) || c.srv.SeededPasswords != tc.seeded {
			t.Errorf("parseServe %q: exit %d, words %q, seeded %v; want %q %v (%s)",
				tc.args, code, c.srv.FourLetterWords, c.srv.SeededPasswords, tc.words, tc.seeded, stderr.String())
		}
	}
	for _, args := range [][]string{{"-4lw", "dupm"}, {"-control-token-file", filepath.Join(t.TempDir(), "none")}} {
		var stdout, stderr bytes.Buffer
		if code := serve(context.Background(), args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), args[0]) {
			t.Errorf("serve %q = %d, stderr %q; want 2 naming %s", args, code, stderr.String(), args[0])
		}
	}
}
