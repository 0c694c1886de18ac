package harness

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/zksim/zksim/report"
	"github.com/zksim/zksim/sim"
)

// Counterexample is a failing run: what ran and the decisions that drove
// it.
type Counterexample struct {
	Subject   Subject // what ran, at the shape it was shrunk to
	Config    sim.Config
	Decisions []int
	Report    *Report
	// Seed is the seed of the schedule whose decisions were shrunk to
	// Decisions (0: not known). The decisions, not the seed, replay it.
	Seed uint64
}

// TraceFile is ce saved: its trace file, which parses back and replays.
func (ce Counterexample) TraceFile() TraceFile {
	return TraceFile{Recipe: ce.Subject.Name(), Workload: ce.Subject.Spec(), Config: ce.Config.WithDefaults(),
		Decisions: ce.Decisions, Trace: ce.Report.Result.Trace}
}

// SaveFailure writes a failing run's trace file (ce.TraceFile) and its
// HTML report (verdict, timeline and trace in one self-contained page,
// with ce's Seed if known) into dir, named after name (.trace and
// .html), and returns their paths (htmlPath "" if the run showed no
// violation). replay words, for the report, how to replay the trace file
// at a path; nil: "zksim replay PATH".
func SaveFailure(dir, name string, ce Counterexample, replay func(tracePath string) string) (tracePath, htmlPath string, err error) {
	if replay == nil {
		replay = func(p string) string { return "zksim replay " + p }
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	file := ce.TraceFile()
	base := strings.NewReplacer("/", "_", " ", "_").Replace(name)
	tracePath = filepath.Join(dir, base+".trace")
	if err := os.WriteFile(tracePath, []byte(file.String()), 0o644); err != nil {
		return "", "", err
	}
	if ce.Report.OK() {
		return tracePath, "", nil
	}
	htmlPath = filepath.Join(dir, base+".html")
	if err := report.WriteFile(htmlPath, htmlReport(file, ce.Subject, ce.Report, ce.Seed, replay(tracePath))); err != nil {
		return tracePath, "", err
	}
	return tracePath, htmlPath, nil
}
