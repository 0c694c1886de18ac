package server_test

import (
	"strings"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/fakezk/server"
)

func newServer(t *testing.T) *server.Server {
	t.Helper()
	srv, err := server.New(server.Config{Machine: fakezk.Config{TickMillis: 100}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func TestApplyFaults_AllOrNothing(t *testing.T) {
	srv := newServer(t)
	err := srv.ApplyFaults("drop-reply:op=create,count=2; expire:session=0x999")
	if err == nil || !strings.Contains(err.Error(), "no live session 0x999") {
		t.Fatalf("ApplyFaults with an unknown session: %v", err)
	}
	if p := srv.Pending(); len(p) != 0 {
		t.Fatalf("a refused spec armed %q", p)
	}
	if err := srv.ApplyFaults("drop-reply:op=create,path=/l/,count=2;drop-request:session=0x10"); err != nil {
		t.Fatal(err)
	}
	want := "drop-reply op=create path=/l/*|drop-reply op=create path=/l/*|drop-request session=0x10"
	if got := strings.Join(srv.Pending(), "|"); got != want {
		t.Errorf("Pending = %q, want %q", got, want)
	}
}

func TestApplyFaults_Errors(t *testing.T) {
	srv := newServer(t)
	for spec, want := range map[string]string{
		"":                             "empty fault spec",
		"drop-reply:op":                `argument "op" is not key=value`,
		"drop-reply:op=get,op=set":     `argument "op" given twice`,
		"drop-reply:count=0":           `count "0" is not a positive number`,
		"drop-reply:when=now":          `unknown argument "when"`,
		"drop-request:session=abc":     `session "abc" is not a session id`,
		"delay-watches":                "missing d=DURATION",
		"delay-watches:d=-1s":          `d "-1s" is not a duration`,
		"disconnect:session=0x100":     "no connected client has session 0x100",
		"expire:session=1,session=2":   `argument "session" given twice`,
		"drop-reply; frobnicate:x=1":   `unknown kind "frobnicate"`,
		"delay-watches:d=1s,session=0": `session "0" is not a session id`,
	} {
		if err := srv.ApplyFaults(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ApplyFaults(%q) = %v, want an error containing %q", spec, err, want)
		}
	}
}
