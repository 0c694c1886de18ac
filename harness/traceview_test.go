package harness_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zksim/zksim/internal/traceview"
)

// The views of saved traces, checked against golden files under
// testdata/view (rewrite them with go test ./harness -run TestWriteTrace
// -update: only this test, as -update also re-records other tests'
// files). The trace files themselves are not touched: a view is only how
// a trace is shown.
func TestWriteTrace_Golden(t *testing.T) {
	for _, tc := range []struct {
		trace, view string
	}{
		{"deadlock-noguidretry.trace", "lines"},
		{"deadlock-noguidretry.trace", "columns"},
		{"herd-dirwatch.trace", "lines"},
		{"herd-dirwatch.trace", "columns"},
		{"orphan-gozk.trace", "lines"},
		{"orphan-gozk.trace", "columns"},
		{"ok-lock-session-replaced-under-create.trace", "columns"},
	} {
		golden := filepath.Join("testdata", "view", strings.TrimSuffix(tc.trace, ".trace")+"."+tc.view)
		t.Run(filepath.Base(golden), func(t *testing.T) {
			rep := replayRegress(t, tc.trace)
			v, err := traceview.Parse(tc.view)
			if err != nil {
				t.Fatal(err)
			}
			v.Dir = "/locks/l"
			var b strings.Builder
			traceview.Write(&b, rep.Result.Trace, rep.Violations, v)
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("%s view of %s differs from %s:\n%s", tc.view, tc.trace, golden, b.String())
			}
		})
	}
}

// A columns view of five clients stays within 160 columns.
func TestWriteTrace_ColumnsFitWidth(t *testing.T) {
	rep := replayRegress(t, "ok-lock-session-replaced-under-create.trace")
	var b strings.Builder
	traceview.Write(&b, rep.Result.Trace, rep.Violations, traceview.View{Columns: true, Dir: "/locks/l"})
	if !strings.Contains(b.String(), "| c5") {
		t.Fatalf("no column for c5:\n%s", b.String())
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > 160 {
			t.Errorf("%d columns: %s", n, l)
		}
	}
}

// Every line of the lines view has its own step; runs of ticks are one
// line; the raw view is the saved trace byte for byte.
func TestWriteTrace_UniqueStepsAndRaw(t *testing.T) {
	rep := replayRegress(t, "deadlock-noguidretry.trace")
	var view strings.Builder
	traceview.Write(&view, rep.Result.Trace, rep.Violations, traceview.View{})
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSuffix(view.String(), "\n"), "\n") {
		f := strings.Fields(l[1:]) // after the blame mark: ID, time, text
		id, text := f[0], strings.Join(f[2:], " ")
		if seen[id] {
			t.Errorf("step %s twice", id)
		}
		seen[id] = true
		if text == "tick" && strings.Contains(id, "-") {
			t.Errorf("line %s: one tick line stands for a run of ticks", id)
		}
	}
	if !seen["55.1"] || !seen["67-107"] {
		t.Errorf("want a step 55.1 (c1's log after its reply) and ticks 67-107, got %v", seen)
	}
	var b strings.Builder
	traceview.Write(&b, rep.Result.Trace, rep.Violations, traceview.View{Raw: true})
	text, _ := os.ReadFile("testdata/regress/deadlock-noguidretry.trace")
	if _, saved, _ := strings.Cut(string(text), "\ntrace\n"); b.String() != saved {
		t.Errorf("raw view differs from the saved trace:\n%s", b.String())
	}
}
