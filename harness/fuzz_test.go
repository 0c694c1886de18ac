package harness_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/zksim/zksim/harness"
)

// FuzzParseTraceFile: any input is parsed or refused with ErrTrace, never
// a panic; what parses prints back to text that parses to the same.
func FuzzParseTraceFile(f *testing.F) {
	files, _ := filepath.Glob("testdata/regress/*.trace")
	barriers, _ := filepath.Glob("testdata/barrier/*.trace")
	files = append(files, barriers...)
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(string(b))
	}
	f.Add("zksim-trace v1\n")
	f.Fuzz(func(t *testing.T, text string) {
		tf, err := harness.ParseTraceFile(text)
		if err != nil {
			return
		}
		again, err := harness.ParseTraceFile(tf.String())
		if err != nil {
			t.Fatalf("printed form does not parse: %v", err)
		}
		if again.String() != tf.String() {
			t.Fatalf("round trip changed the file")
		}
	})
}
