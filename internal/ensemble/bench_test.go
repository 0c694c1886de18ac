package ensemble_test

import (
	"testing"

	"github.com/zksim/zksim/internal/ensemble"
)

// BenchmarkStart_Three is what a run waits before its workload starts:
// three members started until a quorum serves, then stopped (the stop
// is outside the timing).
func BenchmarkStart_Three(b *testing.B) {
	if err := ensemble.Installed(ensemble.Options{N: 3}); err != nil {
		b.Skipf("needs Java and Debian's zookeeper package: %v", err)
	}
	for b.Loop() {
		e, err := ensemble.Start(b.Context(), ensemble.Options{N: 3})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		e.Stop()
		b.StartTimer()
	}
}
