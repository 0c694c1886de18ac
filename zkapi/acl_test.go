package zkapi_test

import (
	"testing"

	"github.com/zksim/zksim/zkapi"
)

// TestDigestID_KnownValue: "super:test" is go-zookeeper's test suite's
// super user, whose digest its cluster starter passes as
// zookeeper.DigestAuthenticationProvider.superDigest.
func TestDigestID_KnownValue(t *testing.T) {
	if got, want := zkapi.DigestID("super:test"), "super:D/InIHSb7yEEbrWz8b9l71RjZJU="; got != want {
		t.Fatalf("DigestID = %q, want %q", got, want)
	}
}

func TestParseACL_RoundTrip(t *testing.T) {
	for _, s := range []string{
		"world:anyone:cdrwa",
		"digest:u1:fpT/y03U+EjItKZOSLGvjnJlyng=:r,ip:10.0.0.0/8:cw",
		"auth::a",
		"world:anyone:0",
		"world:anyone:63",
	} {
		acl, err := zkapi.ParseACL(s)
		if err != nil {
			t.Fatalf("ParseACL(%q): %v", s, err)
		}
		var got string
		for i, a := range acl {
			if i > 0 {
				got += ","
			}
			got += a.String()
		}
		if got != s {
			t.Errorf("ParseACL(%q) renders as %q", s, got)
		}
	}
}

func TestParseACL_Special(t *testing.T) {
	open, err := zkapi.ParseACL("open")
	if err != nil || len(open) != 1 || open[0] != zkapi.OpenACL[0] {
		t.Errorf("ParseACL(open) = %v, %v", open, err)
	}
	empty, err := zkapi.ParseACL("")
	if err != nil || empty == nil || len(empty) != 0 {
		t.Errorf("ParseACL(\"\") = %#v, %v; want an empty non-nil list", empty, err)
	}
	for _, bad := range []string{"world", "world:anyone", "world:anyone:x"} {
		if _, err := zkapi.ParseACL(bad); err == nil {
			t.Errorf("ParseACL(%q) succeeded", bad)
		}
	}
}
