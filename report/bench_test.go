package report_test

import (
	"os"
	"testing"

	"github.com/zksim/zksim/harness"
)

// BenchmarkSaveFailure_FiveClients saves a 5-client failure of the
// standard workload: its trace file and its HTML report, whose size it
// reports.
func BenchmarkSaveFailure_FiveClients(b *testing.B) {
	dir := b.TempDir()
	html, ce := fiveClientFailure(b, dir)
	page, err := os.ReadFile(html)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, _, err := harness.SaveFailure(dir, "bench", ce, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(page)), "html-bytes")
	b.ReportMetric(float64(len(ce.Report.Result.Trace)), "trace-lines")
}
