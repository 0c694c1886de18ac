package conformance_test

import (
	"context"
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/zksim/zksim/internal/conformance"
	"github.com/zksim/zksim/zkapi"
)

// update re-records the scenarios' expected output from the real server,
// the project's one convention for golden files (go test PKG -update).
// It is datadriven's -rewrite confined to TestConformance_Real: the other
// targets skip, so that the fake can never write what the judge says.
var update = flag.Bool("update", false, "re-record testdata/scenarios from the real server (ZKSIM_ZK_STANDALONE); the fake's targets skip")

// skipWhenUpdating leaves a fake target out of an -update run.
func skipWhenUpdating(t *testing.T) {
	if *update {
		t.Skip("-update re-records from the real server only")
	}
}

// TestConformance_Fake runs every scenario on fakezk. The expected output
// in testdata/ is what ZooKeeper 3.8.0 answered (TestConformance_Real
// checks it still does).
func TestConformance_Fake(t *testing.T) {
	skipWhenUpdating(t)
	runScenarios(t, func(t *testing.T) conformance.Target { return newFake(t, 1) })
}

// TestConformance_Real runs the same scenarios on a real server; with
// -update it rewrites their expected output with the real answers.
func TestConformance_Real(t *testing.T) {
	skipUnderRace(t)
	real := newReal(t)
	if *update {
		if err := flag.Set("rewrite", "true"); err != nil {
			t.Fatal(err)
		}
		defer flag.Set("rewrite", "false")
	}
	runScenarios(t, func(*testing.T) conformance.Target { return real })
}

// skipUnderRace leaves the tests that drive a real server through
// go-zookeeper out of -race builds; scripts/test.sh runs them in its plain
// pass. go-zookeeper v1.0.4 reads lastZxid unsynchronised with its receive
// loop's write, in sendSetWatches right after a handshake and in its
// connection loop across a reconnect (conn.go:484 against conn.go:849):
// the race detector reports the dependency, not zksim, and did in two
// test.sh runs of four in one session, as the other packages' tests load
// the machine. It does on serve too, whose scenarios reconnect with auth
// (TestConformance_Serve/acl, one CI run): so the serve runs also go to
// the plain pass. Under -race the same scenarios run on fakezk in process
// (TestConformance_Fake), and internal/netserver's own tests race-check the
// TCP server.
func skipUnderRace(t *testing.T) {
	if raceEnabled {
		t.Skip("go-zookeeper v1.0.4 races on lastZxid; scripts/test.sh runs this without -race")
	}
}

// TestConformance_Serve runs them a third time on fakezk over TCP
// (internal/netserver), through go-zookeeper, exactly as on the real server.
func TestConformance_Serve(t *testing.T) {
	skipWhenUpdating(t)
	skipUnderRace(t)
	runScenarios(t, func(t *testing.T) conformance.Target { return newServe(t, 1) })
}

// superDigest is the super user of the scenarios named *-super.txt,
// super:test, as go-zookeeper's test suite configures its servers
// (zookeeper.DigestAuthenticationProvider.superDigest).
const superDigest = "super:D/InIHSb7yEEbrWz8b9l71RjZJU="

// requireSuper skips the test unless the target's server honours
// superDigest: authenticated as super:test, a setData of /zookeeper/config
// (world:anyone READ) with a wrong version fails on the version, not on
// the ACL, and changes nothing.
func requireSuper(ctx context.Context, t *testing.T, tg conformance.Target) {
	c, err := tg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ac, ok := c.(zkapi.ACLConn)
	if !ok {
		t.Fatalf("%T has no ACLs", c)
	}
	if err := ac.AddAuth(ctx, "digest", []byte("super:test")); err != nil {
		t.Fatal(err)
	}
	_, err = ac.Set(ctx, "/zookeeper/config", nil, 12345)
	switch {
	case errors.Is(err, zkapi.ErrNoAuth):
		t.Skipf("the server has no super user %s: start it with -Dzookeeper.DigestAuthenticationProvider.superDigest=%s", superDigest, superDigest)
	case !errors.Is(err, zkapi.ErrBadVersion):
		t.Fatalf("probing for a super user: %v", err)
	}
}

func runScenarios(t *testing.T, target func(*testing.T) conformance.Target) {
	datadriven.Walk(t, "testdata/scenarios", func(t *testing.T, path string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		tg := target(t)
		if strings.HasSuffix(name, "-super") {
			requireSuper(ctx, t, tg)
		}
		r, err := conformance.NewRunner(ctx, tg, uniqueRoot(name))
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := r.Close(ctx); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		}()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "run" {
				t.Fatalf("%s: unknown directive %q", d.Pos, d.Cmd)
			}
			out, err := r.Run(ctx, d.Input)
			if err != nil {
				t.Fatalf("%s: %v", d.Pos, err)
			}
			return out
		})
	})
}
