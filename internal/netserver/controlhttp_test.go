package netserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// testToken is the control token of newControl's servers.
const testToken = "0123456789abcdef0123456789abcdef"

// do sends one request to the control interface, with testToken unless
// header sets Authorization, and returns the status and body.
func do(t *testing.T, method, url, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
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

func newControl(t *testing.T) string {
	t.Helper()
	ts := httptest.NewServer(newServer(t).Handler(testToken))
	t.Cleanup(ts.Close)
	return ts.URL
}

// notRouted is net/http's answer to a path no handler serves.
const notRouted = "404 page not found\n"

// TestControl_Index: GET / lists every endpoint, as text or JSON, and
// each one it lists is served (not 404 or 405).
func TestControl_Index(t *testing.T) {
	url := newControl(t)
	code, text := do(t, "GET", url+"/", "")
	if code != http.StatusOK {
		t.Fatalf("GET / = %d %q", code, text)
	}
	code, body := do(t, "GET", url+"/", "", "Accept", "application/json")
	var eps []struct{ Method, Path, Description string }
	if err := json.Unmarshal([]byte(body), &eps); err != nil || code != http.StatusOK {
		t.Fatalf("GET / as JSON = %d %q: %v", code, body, err)
	}
	want := []string{"GET /", "POST /faults", "GET /faults", "DELETE /faults", "DELETE /faults/{id}", "GET /sessions",
		"GET /tree", "GET /members", "POST /members/{i}/stop", "POST /members/{i}/start"}
	if len(eps) != len(want) {
		t.Fatalf("GET / lists %d endpoints, want %d: %q", len(eps), len(want), body)
	}
	for i, ep := range eps {
		if ep.Method+" "+ep.Path != want[i] || ep.Description == "" {
			t.Errorf("endpoint %d = %+v, want %s with a description", i, ep, want[i])
		}
		if !strings.Contains(text, ep.Path+" ") || !strings.Contains(text, ep.Description) {
			t.Errorf("the text index lacks %s %s", ep.Method, ep.Path)
		}
		path := strings.NewReplacer("{id}", "1", "{i}", "9").Replace(ep.Path)
		if code, body := do(t, ep.Method, url+path, ""); code == http.StatusMethodNotAllowed || body == notRouted {
			t.Errorf("%s %s, listed, is not served: %d %q", ep.Method, path, code, body)
		}
	}
	if code, body := do(t, "GET", url+"/nothing", ""); code != http.StatusNotFound || body != notRouted {
		t.Errorf("GET /nothing = %d %q, want 404 %q", code, body, notRouted)
	}
}

// TestControl_Faults: armed faults are listed with their ids, cleared one
// by one or all at once; an unknown id is a 404 that says why.
func TestControl_Faults(t *testing.T) {
	url := newControl(t)
	code, body := do(t, "POST", url+"/faults", "drop-reply:op=create,path=/l/,count=2; lose-request:op=delete; delay-watches:d=1s")
	if want := "ok\narmed 1 lose-reply:op=create,path=/l/,count=2\narmed 2 lose-request:op=delete\narmed 3 delay-watches:d=1s\n"; code != http.StatusOK || body != want {
		t.Fatalf("POST /faults = %d %q, want %q", code, body, want)
	}
	if code, body := do(t, "GET", url+"/faults", ""); body != "1 lose-reply:op=create,path=/l/,count=2\n2 lose-request:op=delete\n3 delay-watches:d=1s\n" {
		t.Errorf("GET /faults = %d %q", code, body)
	}
	_, body = do(t, "GET", url+"/faults", "", "Accept", "application/json")
	if want := `"id": 2,
    "kind": "lose-request",
    "spec": "lose-request:op=delete"`; !strings.Contains(body, want) {
		t.Errorf("GET /faults as JSON = %q, want it to hold %q", body, want)
	}
	if code, body := do(t, "DELETE", url+"/faults/2", ""); code != http.StatusOK || body != "cleared 2\n" {
		t.Errorf("DELETE /faults/2 = %d %q", code, body)
	}
	for path, want := range map[string]struct {
		code int
		body string
	}{
		"/faults/2":   {http.StatusNotFound, "netserver: no armed fault 2: it fired its last time, was cleared, or never was (GET /faults lists the armed ones)\n"},
		"/faults/99":  {http.StatusNotFound, "netserver: no armed fault 99: "},
		"/faults/two": {http.StatusBadRequest, `fault id "two" is not a positive number`},
	} {
		if code, body := do(t, "DELETE", url+path, ""); code != want.code || !strings.HasPrefix(body, want.body) {
			t.Errorf("DELETE %s = %d %q, want %d %q", path, code, body, want.code, want.body)
		}
	}
	if code, body := do(t, "DELETE", url+"/faults", ""); code != http.StatusOK || body != "cleared 2\n" {
		t.Errorf("DELETE /faults = %d %q, want 200 cleared 2", code, body)
	}
	if _, body := do(t, "GET", url+"/faults", ""); body != "" {
		t.Errorf("GET /faults after DELETE /faults = %q, want nothing", body)
	}
}

// TestControl_RelativePath: a path without its leading "/" is a 400 that
// names the problem, and arms nothing, not even the spec's other items.
func TestControl_RelativePath(t *testing.T) {
	url := newControl(t)
	code, body := do(t, "POST", url+"/faults", "lose-request:op=get; lose-reply:op=create,path=locks/")
	if want := `path "locks/" is not absolute: it must start with "/"`; code != http.StatusBadRequest || !strings.Contains(body, want) {
		t.Errorf("POST of a relative path = %d %q, want 400 and %q", code, body, want)
	}
	if _, body := do(t, "GET", url+"/faults", ""); body != "" {
		t.Errorf("a refused spec armed %q", body)
	}
}
