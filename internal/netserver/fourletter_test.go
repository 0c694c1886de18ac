package netserver_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
)

// fourLetter sends word to addr and returns the whole answer.
func fourLetter(t *testing.T, addr, word string) string {
	t.Helper()
	c := dialRaw(t, addr)
	c.write([]byte(word))
	b, _ := c.rest(5 * time.Second)
	return string(b)
}

// TestFourLetter_Whitelist: as ZooKeeper 3.8, the server answers srvr
// alone unless told otherwise (4lw.commands.whitelist's default,
// FourLetterCommands.resetWhiteList), and answers a word off the list
// with NopCommand's line (NIOServerCnxn.checkFourLetterWord) without
// running it; "*" answers every word.
func TestFourLetter_Whitelist(t *testing.T) {
	refused := func(w string) string { return w + " is not executed because it is not in the whitelist.\n" }
	for _, tc := range []struct {
		words []string
		want  map[string]string // word: the answer's prefix
	}{
		{nil, map[string]string{"srvr": "Zookeeper version:", "ruok": refused("ruok"), "dump": refused("dump"),
			"cons": refused("cons"), "wchc": refused("wchc"), "crst": refused("crst"), "stmk": refused("stmk")}},
		{[]string{"srvr", "ruok"}, map[string]string{"ruok": "imok", "srvr": "Zookeeper version:", "dump": refused("dump")}},
		{[]string{"*"}, map[string]string{"ruok": "imok", "dump": "SessionTracker dump:", "isro": "rw"}},
		{[]string{}, map[string]string{"srvr": refused("srvr")}},
	} {
		_, addr := newFake(t, netserver.Config{Machine: machine.Config{TickMillis: 500}, FourLetterWords: tc.words})
		for word, want := range tc.want {
			if got := fourLetter(t, addr, word); !strings.HasPrefix(got, want) || strings.HasSuffix(want, "\n") && got != want {
				t.Errorf("whitelist %q: %s = %q, want %q", tc.words, word, got, want)
			}
		}
	}
}

// TestFourLetter_UnknownWordRefused: a whitelist naming a word no server
// knows is a config error, not a word silently never answered.
func TestFourLetter_UnknownWordRefused(t *testing.T) {
	for _, w := range []string{"dupm", "srvr2", "", "SRVR"} {
		if _, err := netserver.New(netserver.Config{FourLetterWords: []string{w}}); err == nil || !strings.Contains(err.Error(), `"`+w+`"`) {
			t.Errorf("FourLetterWords [%q]: New = %v, want an error naming it", w, err)
		}
	}
	if err := netserver.CheckFourLetterWords([]string{"srvr", "*", "wchc"}); err != nil {
		t.Errorf("CheckFourLetterWords(srvr, *, wchc) = %v", err)
	}
}

// TestSession_PasswordNotDerivable: by default a session's password does
// not follow from its id and the seed, so a client that learns another's
// session id cannot resume it; with SeededPasswords, two servers of the
// same seed give the same password (runs repeat).
func TestSession_PasswordNotDerivable(t *testing.T) {
	open := func(seeded bool) (string, int64, []byte) {
		_, addr := newFake(t, netserver.Config{Machine: machine.Config{Seed: 1, TickMillis: 500}, SeededPasswords: seeded})
		id, pw, _ := dialRaw(t, addr).handshake(10000, 0, make([]byte, 16))
		return addr, id, pw
	}
	victim, id, pw := open(false)
	_, seededID, derived := open(true)
	_, _, again := open(true)
	if seededID != id {
		t.Fatalf("session ids %#x and %#x differ: the test needs the same id on both", id, seededID)
	}
	if !bytes.Equal(derived, again) {
		t.Errorf("seeded passwords %x and %x differ: runs would not repeat", derived, again)
	}
	if bytes.Equal(pw, derived) {
		t.Fatalf("password %x is the seeded one: anyone who knows session %#x can resume it", pw, id)
	}
	if got, _, timeout := dialRaw(t, victim).handshake(10000, id, derived); got == id || timeout != 0 {
		t.Errorf("resuming %#x with the derived password: session %#x, timeout %d; want it refused", id, got, timeout)
	}
	if _, otherID, otherPw := open(false); otherID == id && bytes.Equal(pw, otherPw) {
		t.Errorf("two servers gave session %#x the same random password %x", id, pw)
	}
}
