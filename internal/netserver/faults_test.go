package netserver_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zksim/zksim/internal/netserver"
)

// TestFaults_OldSpellings: drop-reply and drop-request, the names serve
// used before it shared zksim run's vocabulary, still arm the same faults,
// which are listed under their one name.
func TestFaults_OldSpellings(t *testing.T) {
	srv := newServer(t)
	if err := srv.ApplyFaults("drop-reply:op=create;lose-reply:op=create;drop-request;lose-request"); err != nil {
		t.Fatal(err)
	}
	want := "1 lose-reply:op=create|2 lose-reply:op=create|3 lose-request|4 lose-request"
	if got := armed(srv); got != want {
		t.Errorf("Faults = %q, want %q", got, want)
	}
}

// TestFaultSpecHelp_EachKindOnce: the help lists every fault once under
// its name, and each old spelling once, as an old spelling.
func TestFaultSpecHelp_EachKindOnce(t *testing.T) {
	for _, name := range []string{"lose-reply", "lose-request", "delay-watches", "expire", "disconnect", "abandon"} {
		if n := strings.Count(netserver.FaultSpecHelp, "\n  "+name); n != 1 {
			t.Errorf("FaultSpecHelp has %d lines for %s, want 1:\n%s", n, name, netserver.FaultSpecHelp)
		}
	}
	for _, old := range []string{"drop-reply for lose-reply", "drop-request for lose-request"} {
		if n := strings.Count(netserver.FaultSpecHelp, strings.Fields(old)[0]); n != 1 || !strings.Contains(netserver.FaultSpecHelp, old) {
			t.Errorf("FaultSpecHelp names %q %d times, want once as %q:\n%s", strings.Fields(old)[0], n, old, netserver.FaultSpecHelp)
		}
	}
	srv := newServer(t)
	err := srv.ApplyFaults("lose-everything")
	want := `unknown kind "lose-everything" (known: lose-reply, lose-request, delay-watches, expire, disconnect, abandon; old spellings drop-reply, drop-request)`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ApplyFaults of an unknown kind = %v, want %q", err, want)
	}
}

// TestServer_LoseReplyRelativePath: a relative path prefix could never
// match (a request's path is absolute), so it is refused, nothing armed.
func TestServer_LoseReplyRelativePath(t *testing.T) {
	srv := newServer(t)
	if _, err := srv.LoseReply(netserver.Match{Path: "locks/"}); err == nil || !strings.Contains(err.Error(), `path "locks/" is not absolute`) {
		t.Errorf("LoseReply of a relative path = %v, want refused", err)
	}
	if _, err := srv.LoseRequest(netserver.Match{Path: "locks"}); err == nil {
		t.Error("LoseRequest of a relative path succeeded")
	}
	if got := armed(srv); got != "" {
		t.Errorf("refused rules armed %q", got)
	}
}

// TestServer_ClearFault: ids are stable, unique for the server's life,
// and clear one fault each; ClearFaults clears the rest, delays included.
func TestServer_ClearFault(t *testing.T) {
	srv := newServer(t)
	a, _ := srv.LoseReply(netserver.Match{Op: "create"})
	b, _ := srv.LoseRequest(netserver.Match{Path: "/x"})
	if err := srv.ApplyFaults("delay-watches:d=2s;delay-watches:d=1s,session=0x10;delay-watches:d=3s"); err != nil {
		t.Fatal(err)
	}
	if want := "1 lose-reply:op=create|2 lose-request:path=/x|4 delay-watches:d=1s,session=0x10|5 delay-watches:d=3s"; armed(srv) != want {
		t.Fatalf("Faults = %q, want %q (a new delay for a session replaces its old one)", armed(srv), want)
	}
	if err := srv.ClearFault(a); err != nil {
		t.Fatal(err)
	}
	if err := srv.ClearFault(a); !errors.Is(err, netserver.ErrNoFault) {
		t.Errorf("ClearFault(%d) twice = %v, want ErrNoFault", a, err)
	}
	if err := srv.ClearFault(3); !errors.Is(err, netserver.ErrNoFault) {
		t.Errorf("ClearFault of the replaced delay = %v, want ErrNoFault", err)
	}
	if want := "2 lose-request:path=/x|4 delay-watches:d=1s,session=0x10|5 delay-watches:d=3s"; armed(srv) != want {
		t.Fatalf("after ClearFault(%d): %q, want %q", a, armed(srv), want)
	}
	if n := srv.ClearFaults(); n != 3 {
		t.Errorf("ClearFaults = %d, want 3", n)
	}
	if c, _ := srv.LoseReply(netserver.Match{}); c <= b || armed(srv) != "6 lose-reply" {
		t.Errorf("after ClearFaults: new id %d, faults %q; want 6 alone", c, armed(srv))
	}
}

// TestServer_RuleGoneOnceFired: a rule with count=2 catches two requests
// and then is no longer listed.
func TestServer_RuleGoneOnceFired(t *testing.T) {
	checkLeaks(t)
	srv, addr := newFake(t, serverConfig())
	if err := srv.ApplyFaults("lose-request:op=create,path=/a,count=2"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 lose-request:op=create,path=/a", ""} {
		c := dialRaw(t, addr)
		c.handshake(4000, 0, nil)
		c.write(create(1, "/a", "", 0))
		expectClosed(t, c, "the connection of a lost request")
		if got := armed(srv); got != want {
			t.Errorf("after a lost request: Faults = %q, want %q", got, want)
		}
	}
}
