package netserver

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// The control interface can expire sessions, lose requests and stop
// members, so on a shared machine it is guarded three ways: a bearer
// token (another local user cannot guess it), a Host check (a web page
// cannot reach it through DNS rebinding, whose requests carry the
// attacker's host name), and an Origin check (a page on another origin
// cannot POST to it, although a browser would send the request without
// reading the reply).

// NewToken returns a fresh control token: 32 hex digits from crypto/rand.
func NewToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("netserver: control token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// guard serves next only to requests that pass every check of the
// control interface.
type guard struct {
	token string
	next  http.Handler
}

func (g guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !localHost(r.Host) {
		http.Error(w, fmt.Sprintf("control: Host %q refused: only an IP address or localhost is served (a DNS name may be a rebinding attack)", r.Host), http.StatusForbidden)
		return
	}
	if !sameOrigin(r) {
		http.Error(w, fmt.Sprintf("control: cross-origin request from %q refused", r.Header.Get("Origin")), http.StatusForbidden)
		return
	}
	if !g.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="zksim serve"`)
		http.Error(w, "control: missing or wrong token: send the header \"Authorization: Bearer TOKEN\" with the token zksim serve printed at start", http.StatusUnauthorized)
		return
	}
	g.next.ServeHTTP(w, r)
}

// authorized reports whether r carries the token, compared in constant
// time; an empty token authorizes nothing.
func (g guard) authorized(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && g.token != "" && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(g.token)) == 1
}

// localHost reports whether a Host header names the server by address
// or as localhost, never by a DNS name that could rebind.
func localHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.EqualFold(host, "localhost") || net.ParseIP(host) != nil
}

// sameOrigin reports whether a browser's request comes from the control
// interface's own origin; requests without Origin (curl, scripts) pass,
// as do those a browser marks same-origin.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host == r.Host
}
