package conformance_test

import (
	"context"
	"flag"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/zksim/zksim/internal/conformance"
)

// TestDifferential_Real runs rapid-generated multi-session scripts of at
// least 50 operations on fakezk and on the real server and requires
// identical transcripts. Every disagreement it ever found is kept as a
// scenario file under testdata/scenarios/ named regress-*.txt.
func TestDifferential_Real(t *testing.T) {
	skipUnderRace(t)
	differential(t, newReal(t), "the real server")
}

func differential(t *testing.T, other conformance.Target, name string) {
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == "100" {
		f.Value.Set(strconv.Itoa(differentialChecks))
	}
	rapid.Check(t, func(rt *rapid.T) {
		script := conformance.GenScript(rt, 50+rapid.IntRange(0, 30).Draw(rt, "extra"))
		f := fakeServer(7)
		defer f.srv.Close()
		// One root for both: a closing session's ephemerals are deleted in
		// the order of a hash set of their absolute paths, which a
		// recursive watch shows.
		root := uniqueRoot("diff")
		fake := runScript(rt, f, script, root)
		got := runScript(rt, other, script, root)
		if diff := cmp.Diff(got, fake); diff != "" {
			rt.Fatalf("fakezk disagrees with %s (-%s +fake):\n%s\nscript:\n%s", name, name, diff, script)
		}
	})
}

// differentialChecks is how many scripts one run compares.
const differentialChecks = 200

// fataler is what runScript needs of a *testing.T or a *rapid.T.
type fataler interface {
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// runScript runs script on target under root, failing t if it cannot.
func runScript(t fataler, target conformance.Target, script, root string) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := conformance.NewRunner(ctx, target, root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	out, err := r.Run(ctx, script)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return out
}
