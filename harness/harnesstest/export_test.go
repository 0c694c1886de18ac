package harnesstest

import (
	"flag"
	"fmt"
	"slices"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
)

// Find runs Check's search with rapid's default 100 checks from the
// given rapid seed until a schedule shows class, and returns that
// schedule's number (from 1), or 0 if none did. It does not shrink.
func Find(t *testing.T, rapidSeed uint64, w harness.Subject, opts Options, class check.Class) int {
	t.Helper()
	withRapidSeed(t, rapidSeed)
	found, _, err := explore(t, subjectDraw(w, opts.Config), shown(class))
	if err != nil {
		t.Fatal(err)
	}
	return firstShowing(found, class)
}

// SchedulesPerCheck exports schedulesPerCheck.
const SchedulesPerCheck = schedulesPerCheck

func shown(class check.Class) func([]finding) bool {
	return func(found []finding) bool { return firstShowing(found, class) > 0 }
}

func firstShowing(found []finding, class check.Class) int {
	i := slices.IndexFunc(found, func(f finding) bool { return f.class == class })
	if i < 0 {
		return 0
	}
	return found[i].index
}

// withRapidSeed sets rapid's -rapid.seed until the test ends, and
// -rapid.checks so that rapid runs its default 100 checks, which the
// power tests' claims are about, even under -short (where rapid runs a
// fifth of -rapid.checks).
func withRapidSeed(t *testing.T, seed uint64) {
	checks := 100
	if testing.Short() {
		checks *= 5
	}
	for name, value := range map[string]string{"rapid.seed": fmt.Sprint(seed), "rapid.checks": fmt.Sprint(checks)} {
		f := flag.Lookup(name)
		old := f.Value.String()
		if err := f.Value.Set(value); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Value.Set(old) })
	}
}
