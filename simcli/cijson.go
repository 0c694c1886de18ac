package simcli

import (
	"encoding/json"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/checkers"
)

// Output for CI: run -json writes JSON lines on stdout (the text report
// then goes to stderr), and -junit FILE a JUnit XML report. The JSON
// schema is docs/cli.md's ("Using zksim in CI"); its field names are
// stable: fields may be added, never renamed or removed.
//
// Every object but the summary's elapsed_seconds is decided by the seeds
// and flags alone: two runs of the same command (whatever -parallel)
// write the same bytes once elapsed_seconds is removed.

// Types of the JSON objects.
const (
	jsonFailure        = "failure"        // a failing schedule, as found, in schedule order
	jsonCounterexample = "counterexample" // the first failure, minimized and saved
	jsonSummary        = "summary"        // the run's verdict, always last
)

// jsonWorkload is the workload of a run or a counterexample.
type jsonWorkload struct {
	Clients         int    `json:"clients"`
	Acquisitions    int    `json:"acquisitions"`
	ReadPercent     int    `json:"read_percent"`     // read/write recipes: share of read acquisitions
	DeadlineTicks   int    `json:"deadline_ticks"`   // 0: no deadlines
	DeadlinePercent int    `json:"deadline_percent"` // acquisitions with a deadline
	Followers       int    `json:"followers"`        // -1: 0 for even seeds, 1 for odd
	SequenceStart   int32  `json:"sequence_start"`   // 0: from 0
	Overflow        string `json:"overflow"`         // pin or wrap
	Unfenced        bool   `json:"unfenced"`
	// Another Subject's (CLI.Subjects): its kind, "barrier" for a
	// barrier recipe's (then acquisitions are each client's rounds), and
	// whether its Spec says single=true (the single barrier).
	Kind   string `json:"kind,omitempty"`
	Single bool   `json:"single,omitempty"`
}

// jsonFailureObject is a failing schedule (type "failure") or the saved
// counterexample (type "counterexample", with its trace).
type jsonFailureObject struct {
	Type      string        `json:"type"`
	Seed      uint64        `json:"seed"`
	Schedule  *int          `json:"schedule,omitempty"` // k: the run's schedule seed-first_seed; none in a systematic search
	Class     check.Class   `json:"class"`              // the worst class
	Classes   []check.Class `json:"classes"`            // every class, worst first
	Message   string        `json:"message"`            // the worst class's first violation
	Recipe    string        `json:"recipe"`
	Workload  jsonWorkload  `json:"workload"`
	Faults    string        `json:"faults"`               // the -faults spec
	TraceFile string        `json:"trace_file,omitempty"` // counterexample: the saved trace
	Trace     []string      `json:"trace,omitempty"`      // counterexample: its lines
	Replay    string        `json:"replay,omitempty"`     // counterexample: the command that replays it
	NotSaved  string        `json:"not_saved,omitempty"`  // counterexample: why there is no trace file
	Real      *jsonReal     `json:"real,omitempty"`       // a run on real servers: its faults and violations
}

// jsonSummaryObject is the last object: the -summary file's fields, the
// run's setting, whether the plan or bounds were exhausted, and the
// elapsed time apart.
type jsonSummaryObject struct {
	Type     string       `json:"type"`
	Workload jsonWorkload `json:"workload"`
	Faults   string       `json:"faults"`
	Strategy string       `json:"strategy"`
	summary
	// Exhausted: every schedule of the plan ran (seeded strategies), or
	// every schedule within the bounds (exhaustive); false when a time
	// limit or Ctrl-C stopped the run first.
	Exhausted bool      `json:"exhausted"`
	Elapsed   float64   `json:"elapsed_seconds"` // wall-clock time: not part of the verdict
	Real      *jsonReal `json:"real,omitempty"`  // a run on real servers: its faults and violations
}

// jsonMergeObject is merge -json's object: the merged -summary fields,
// the shards missing, and whether every seed of the run's plan ran.
type jsonMergeObject struct {
	Type string `json:"type"`
	summary
	Missing   []int `json:"missing_shards"`
	Exhausted bool  `json:"exhausted"`
}

// ciOutput writes a run's JSON lines and JUnit report, when asked.
type ciOutput struct {
	json  *json.Encoder // nil without -json
	junit string        // "" without -junit
	// firsts is each class's first failing schedule, for JUnit.
	firsts map[check.Class]jsonFailureObject
	ce     *jsonFailureObject
}

func newCIOutput(stdout io.Writer, asJSON bool, junit string) *ciOutput {
	c := &ciOutput{junit: junit, firsts: map[check.Class]jsonFailureObject{}}
	if asJSON {
		c.json = json.NewEncoder(stdout)
		c.json.SetEscapeHTML(false)
	}
	return c
}

// workloadJSON is s (the run's Subject, or a smaller one) with the
// run's settings: a lock recipe's from its flags.
func (rc runConfig) workloadJSON(s harness.Subject) jsonWorkload {
	sh := s.Shape()
	if rc.recipe.Name == "" {
		return jsonWorkload{Kind: kindOf(s), Clients: sh.Clients, Acquisitions: sh.Each, Single: specField(s.Spec(), "single") == "true",
			Followers: rc.followers, Overflow: rc.overflow.String()}
	}
	w := rc.workload
	return jsonWorkload{Clients: sh.Clients, Acquisitions: sh.Each, ReadPercent: w.ReadPercent,
		DeadlineTicks: w.TimeoutTicks, DeadlinePercent: w.TimeoutPercent, Followers: rc.followers,
		SequenceStart: w.SequenceStart, Overflow: rc.overflow.String(), Unfenced: w.Unfenced}
}

// failureObject describes a failing run of workload w with seed seed.
func (rc runConfig) failureObject(typ string, seed uint64, w harness.Subject, vs []check.Violation) jsonFailureObject {
	classes := worstFirst(vs)
	f := jsonFailureObject{Type: typ, Seed: seed, Class: classes[0], Classes: classes,
		Recipe: rc.subject.Name(), Workload: rc.workloadJSON(w), Faults: rc.faults}
	f.Message = firstMessage(vs, f.Class)
	return f
}

// firstMessage is the detail and cause of the first violation of class
// in vs.
func firstMessage(vs []check.Violation, class check.Class) string {
	for _, v := range vs {
		if v.Class == class {
			return strings.TrimPrefix(v.String(), string(v.Class)+": ")
		}
	}
	return ""
}

// worstFirst is the classes of vs, without repeats, worst first (then by
// name).
func worstFirst(vs []check.Violation) []check.Class {
	rep := harness.Report{Violations: vs}
	classes := rep.Classes()
	sortBySeverity(classes)
	return classes
}

// sortBySeverity sorts classes worst first, keeping the order of those
// that rank alike.
func sortBySeverity(classes []check.Class) {
	slices.SortStableFunc(classes, func(a, b check.Class) int { return checkers.Severity(a) - checkers.Severity(b) })
}

// failure records the failing schedule t of seed; with -json it writes
// it at once.
func (c *ciOutput) failure(rc runConfig, t int, seed uint64, vs []check.Violation) {
	f := rc.failureObject(jsonFailure, seed, rc.subject, vs)
	f.Schedule = &t
	for _, class := range f.Classes {
		if _, ok := c.firsts[class]; !ok {
			c.firsts[class] = f
		}
	}
	c.write(f)
}

// counterexample records the saved counterexample of the failure of
// seed (schedule t; nil for none) and writes it with -json.
func (c *ciOutput) counterexample(rc runConfig, seed uint64, t *int, ce *harness.Counterexample, tracePath string) {
	f := rc.failureObject(jsonCounterexample, seed, ce.Subject, ce.Report.Violations)
	f.Schedule, f.TraceFile, f.Trace = t, tracePath, ce.Report.Result.Trace
	if tracePath != "" {
		f.Replay = rc.cli.replayCommand() + " replay " + tracePath
	} else {
		f.NotSaved = "the trace could not be saved (see the text report)"
	}
	c.ce = &f
	c.write(f)
}

// finish writes the summary object and the JUnit report.
func (c *ciOutput) finish(rc runConfig, s summary, exhausted bool, elapsed time.Duration) error {
	c.write(jsonSummaryObject{Type: jsonSummary, Workload: rc.workloadJSON(rc.subject),
		Faults: rc.faults, Strategy: rc.strategy.name, summary: s, Exhausted: exhausted, Elapsed: elapsed.Seconds()})
	if c.junit == "" {
		return nil
	}
	return writeJUnit(c.junit, rc.junitVerdict(s, c, elapsed))
}

func (c *ciOutput) write(v any) {
	if c.json != nil {
		// Encoding these types cannot fail; a write error (a closed
		// pipe) leaves the exit code to say the verdict.
		_ = c.json.Encode(v)
	}
}

// joinClasses words classes for a line of text, comma-separated.
func joinClasses(classes []check.Class) string {
	ws := make([]string, len(classes))
	for i, c := range classes {
		ws[i] = string(c)
	}
	return strings.Join(ws, ", ")
}
