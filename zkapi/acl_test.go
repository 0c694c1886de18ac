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
