package simcli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/sim"
)

// summary is the JSON a run writes with -summary FILE. merge joins the
// summaries of the shards of one run: counts add up, and the first
// failure of the run is the one with the smallest seed.
type summary struct {
	Run       string              `json:"run"`              // recipe, workload, faults, strategy: the shards of one run share it
	Recipe    string              `json:"recipe,omitempty"` // the recipe's name
	Seed      uint64              `json:"seed"`             // the run's first seed
	Total     int                 `json:"total"`            // schedules over all shards; 0: until a time limit
	Shard     int                 `json:"shard"`            // this is shard Shard of Shards
	Shards    int                 `json:"shards"`
	Schedules int                 `json:"schedules"`          // the shard's schedules t = 0..Schedules-1 ran: seeds seed+shard+t*shards
	Seeds     string              `json:"seeds"`              // the same, in words
	Stopped   string              `json:"stopped,omitempty"`  // why the shard ended before its plan: "time limit" or "interrupted"
	Coverage  *coverage           `json:"coverage,omitempty"` // -strategy exhaustive (-json, -junit): what the search covered
	Failing   int                 `json:"failing"`            // schedules with at least one violation
	Classes   map[check.Class]int `json:"classes"`            // schedules per violation class
	Wakeups   int                 `json:"wakeups"`            // herd: clients woken by changes to the lock, in all
	Changes   int                 `json:"changes"`            // herd: changes that woke clients
	MaxWoken  int                 `json:"max_woken"`          // herd: most clients one change woke
	First     *firstFailure       `json:"first_failure,omitempty"`
	Exit      int                 `json:"exit"` // the shard's exit code
	// Exercised is what the schedules met (sim.Coverage's JSON form),
	// merge adds it up; absent in summaries written before it.
	Exercised *sim.Coverage `json:"exercised,omitempty"`
}

// coverage is what a systematic search covered, without its timing.
type coverage struct {
	Deviations int  `json:"deviations"` // the last pass's deviation bound; -1: none
	Depth      int  `json:"depth"`      // the last pass's depth bound; 0: none
	Passes     int  `json:"passes"`
	States     int  `json:"states"`   // distinct states of the last pass
	Visited    int  `json:"visited"`  // of every pass, added up
	Complete   bool `json:"complete"` // no schedule cut by the deviation or depth bound either
}

func (c coverage) String() string {
	return fmt.Sprintf("deviations <= %d, depth <= %d: %d passes, %d states in the last, %d in all, complete %v",
		c.Deviations, c.Depth, c.Passes, c.States, c.Visited, c.Complete)
}

type firstFailure struct {
	Seed    uint64        `json:"seed"`
	Classes []check.Class `json:"classes"`           // worst first
	Trace   string        `json:"trace,omitempty"`   // the minimized counterexample's trace file
	Message string        `json:"message,omitempty"` // the worst class's first violation in the failing schedule
	// TraceFromSummary is Trace relative to the summary file's directory,
	// for merge (see withTraceFromSummary).
	TraceFromSummary string `json:"trace_from_summary,omitempty"`
}

// summaryOf is the verdict of a run that saw t and exits with code.
func (rc runConfig) summaryOf(t *tally, code int) summary {
	s := summary{Run: rc.describe(), Recipe: rc.subject.Name(), Seed: rc.plan.seed, Total: rc.plan.total, Shard: rc.plan.shard, Shards: rc.plan.shards,
		Schedules: t.schedules, Seeds: rc.plan.seeds(t.schedules), Failing: t.failing, Classes: t.byClass,
		Wakeups: t.wakeups, Changes: t.changes, MaxWoken: t.maxWoken, Exit: code, Exercised: &t.exercised}
	if t.stopped != nil {
		s.Stopped = t.stopped.Error()
	}
	if f := t.first; f != nil {
		s.First = &firstFailure{Seed: f.seed, Classes: f.classes, Trace: f.trace, Message: f.message}
	}
	return s
}

// writeSummary writes s to path, for merge.
func writeSummary(path string, s summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

const mergeUsage = `usage: %[1]s merge [-json] [-junit FILE] SUMMARY...

Merge the -summary files of the shards of one run ('%[1]s run -shard I/N
-summary FILE' for I = 0..N-1) into the run's verdict: the counts add up,
and the first failure is the shards' first failure with the smallest
seed. Exit code 1 if any shard saw a violation or a shard is missing,
0 otherwise, 2 if the files are not the shards of one run (or one is not
a summary as run writes it, or -junit cannot be written), 3 if the
-junit report could not be written after all. -json prints
the merged verdict as run -json's summary object (docs/cli.md: Using zksim
in CI), -junit writes it as a JUnit XML report.

`

// errMerge is wrapped by every reason summaries cannot be merged.
var errMerge = errors.New("not the shards of one run")

func (c *CLI) runMerge(args []string, stdout, stderr io.Writer) int {
	fs := NewFlags("merge", fmt.Sprintf(mergeUsage, c.name()), stderr)
	asJSON := fs.Bool("json", false, "print the merged verdict as one JSON object on stdout instead of the text")
	junit := fs.String("junit", "", "write the merged verdict as a JUnit XML report to this file")
	if code := c.parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return ExitUsage
	}
	if err := checkFileOutput("junit", *junit); err != nil {
		return c.usageError(fs, "%v", err)
	}
	var sums []summary
	for _, path := range fs.Args() {
		s, err := readSummary(path)
		if err != nil {
			return c.usageError(fs, "%s: %v", path, err)
		}
		sums = append(sums, resolveTrace(s, path))
	}
	m, missing, err := mergeSummaries(sums)
	if err != nil {
		return c.usageError(fs, "%v", err)
	}
	code := ExitOK
	if m.Failing > 0 || len(missing) > 0 {
		code = ExitViolation
	}
	if *asJSON {
		c.mergeJSON(stdout, m, sums, missing, code)
	} else {
		c.mergeReport(stdout, m, sums, missing)
	}
	if *junit != "" {
		if err := writeJUnit(*junit, c.mergeJUnit(m, sums, missing)); err != nil {
			fmt.Fprintf(stderr, "%s merge: -junit: %v\n", c.name(), err)
			return lostOutput(code)
		}
	}
	return code
}

func readSummary(path string) (summary, error) {
	var s summary
	b, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, err
	}
	if s.Shards < 1 || s.Shard < 0 || s.Shard >= s.Shards || s.Run == "" {
		return s, errors.New("not a summary written by run -summary")
	}
	return s, s.consistent()
}

// consistent refuses a summary no run writes (an edited or corrupted
// one), naming the field: a negative count, more failing schedules than
// schedules, or a shard that claims to have finished its plan with
// another number of schedules. merge would otherwise add such counts up
// and could say that the run covered every seed.
func (s summary) consistent() error {
	for _, c := range []struct {
		name string
		n    int
	}{{"total", s.Total}, {"schedules", s.Schedules}, {"failing", s.Failing}, {"wakeups", s.Wakeups}, {"changes", s.Changes}, {"max_woken", s.MaxWoken}} {
		if c.n < 0 {
			return fmt.Errorf("%w: %q is %d, negative", errEdited, c.name, c.n)
		}
	}
	for _, class := range slices.Sorted(maps.Keys(s.Classes)) {
		if n := s.Classes[class]; n < 0 || n > s.Failing {
			return fmt.Errorf("%w: \"classes\" has %s %d, want 0..failing (%d)", errEdited, class, n, s.Failing)
		}
	}
	own := plan{total: s.Total, shard: s.Shard, shards: s.Shards}
	switch {
	case s.Failing > s.Schedules:
		return fmt.Errorf("%w: \"failing\" is %d, more than its %d schedules", errEdited, s.Failing, s.Schedules)
	case s.Total > 0 && s.Schedules > own.count():
		return fmt.Errorf("%w: \"schedules\" is %d, more than shard %d/%d's %d", errEdited, s.Schedules, s.Shard, s.Shards, own.count())
	case s.Total > 0 && s.Stopped == "" && s.Schedules != own.count():
		return fmt.Errorf("%w: \"schedules\" is %d, not stopped, but shard %d/%d has %d", errEdited, s.Schedules, s.Shard, s.Shards, own.count())
	case s.Failing > 0 && s.First == nil:
		return fmt.Errorf("%w: \"failing\" is %d without a \"first_failure\"", errEdited, s.Failing)
	}
	return nil
}

// errEdited is wrapped by every reason a summary is not one run wrote.
var errEdited = errors.New("not a summary as run -summary writes it")

// mergeSummaries adds the shards' counts up and keeps the first failure
// with the smallest seed; missing lists the shards without a summary.
func mergeSummaries(sums []summary) (m summary, missing []int, err error) {
	m = sums[0]
	m.Schedules, m.Failing, m.Wakeups, m.Changes, m.MaxWoken, m.First = 0, 0, 0, 0, 0, nil
	m.Exercised = mergeExercised(sums)
	all := plan{seed: m.Seed, total: m.Total, shards: 1}
	m.Shard, m.Seeds, m.Stopped, m.Exit = 0, all.seeds(all.count()), "", 0
	m.Classes = map[check.Class]int{}
	seen := map[int]bool{}
	for _, s := range sums {
		switch {
		case s.Run != m.Run || s.Seed != m.Seed || s.Total != m.Total || s.Shards != m.Shards:
			return m, nil, fmt.Errorf("%w: %q with seed %d, %d schedules, %d shards against %q with seed %d, %d schedules, %d shards",
				errMerge, s.Run, s.Seed, s.Total, s.Shards, m.Run, m.Seed, m.Total, m.Shards)
		case seen[s.Shard]:
			return m, nil, fmt.Errorf("%w: shard %d/%d given twice", errMerge, s.Shard, s.Shards)
		}
		seen[s.Shard] = true
		m.Schedules += s.Schedules
		m.Failing += s.Failing
		for c, n := range s.Classes {
			m.Classes[c] += n
		}
		m.Wakeups += s.Wakeups
		m.Changes += s.Changes
		m.MaxWoken = max(m.MaxWoken, s.MaxWoken)
		if s.Stopped != "" {
			m.Stopped = s.Stopped
		}
		if s.First != nil && (m.First == nil || s.First.Seed < m.First.Seed) {
			m.First = s.First
		}
	}
	for i := range m.Shards {
		if !seen[i] {
			missing = append(missing, i)
		}
	}
	return m, missing, nil
}

func (c *CLI) mergeReport(w io.Writer, m summary, sums []summary, missing []int) {
	all := plan{seed: m.Seed, total: m.Total, shards: 1}
	fmt.Fprintf(w, "%s merge: %s, %s: %d of %d shards\n\n", c.name(), m.Run, all.seeds(all.count()), len(sums), m.Shards)
	complete := len(missing) == 0
	for _, s := range sums {
		complete = complete && s.Stopped == ""
	}
	if complete && m.Total > 0 {
		fmt.Fprintf(w, "  %-22s every seed of %d..%d\n", "covered", m.Seed, m.Seed+uint64(m.Total)-1)
	} else {
		sorted := slices.Clone(sums)
		slices.SortFunc(sorted, func(a, b summary) int { return a.Shard - b.Shard })
		for _, s := range sorted {
			line := s.Seeds
			if s.Stopped != "" {
				line += " (" + s.Stopped + ")"
			}
			fmt.Fprintf(w, "  %-22s %s\n", fmt.Sprintf("covered by %d/%d", s.Shard, s.Shards), line)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(w, "  %-22s %s\n", "missing shards", strings.Trim(fmt.Sprint(missing), "[]"))
	}
	fmt.Fprintf(w, "  %-22s %d\n  %-22s %d schedules\n", "schedules", m.Schedules, "violations", m.Failing)
	writeClasses(w, m.Classes)
	herd := 0.0
	if m.Changes > 0 {
		herd = float64(m.Wakeups) / float64(m.Changes)
	}
	fmt.Fprintf(w, "  %-22s %.2f clients woken per change (max %d)\n", "herd", herd, m.MaxWoken)
	writeExercised(w, m.Exercised)
	if f := m.First; f != nil {
		fmt.Fprintf(w, "\nfirst failure: seed %d, %s\n", f.Seed, joinClasses(f.Classes))
		if f.Trace != "" {
			fmt.Fprintf(w, "trace:    %s (saved by its shard)\nreplay:   %s replay %s\n", f.Trace, c.replayCommand(), filepath.ToSlash(f.Trace))
		}
	}
}

// mergeJSON prints the merged verdict as one JSON object.
func (c *CLI) mergeJSON(w io.Writer, m summary, sums []summary, missing []int, code int) {
	m.Exit = code
	exhausted := len(missing) == 0 && m.Stopped == "" && m.Total > 0
	if missing == nil {
		missing = []int{}
	}
	b, _ := json.Marshal(jsonMergeObject{Type: jsonSummary, summary: m, Missing: missing, Exhausted: exhausted})
	fmt.Fprintf(w, "%s\n", b)
}

// mergeJUnit is the merged verdict as a JUnit report: the first failure's
// class has its seed, message and trace file (saved by its shard).
func (c *CLI) mergeJUnit(m summary, sums []summary, missing []int) junitVerdict {
	recipe := m.Recipe
	if recipe == "" { // a summary from before recipe was written
		recipe, _, _ = strings.Cut(m.Run, ",")
	}
	v := junitVerdict{suite: c.name() + " merge " + recipe, classname: c.name() + "." + recipe, properties: summaryProperties(m),
		schedules: m.Schedules, classes: m.Classes, firsts: map[check.Class]jsonFailureObject{}}
	if f := m.First; f != nil && len(f.Classes) > 0 {
		first := jsonFailureObject{Seed: f.Seed, Class: f.Classes[0], Classes: f.Classes, Message: f.Message, TraceFile: f.Trace}
		if f.Trace != "" {
			first.Replay = c.replayCommand() + " replay " + filepath.ToSlash(f.Trace)
		}
		v.firsts[first.Class] = first
	}
	if len(missing) > 0 {
		v.problem = fmt.Sprintf("missing shards: %s of %d", strings.Trim(fmt.Sprint(missing), "[]"), m.Shards)
	}
	return v
}

// mergeExercised adds the shards' coverage up; nil if a shard's summary
// has none (written before it was), which a partial sum would misstate.
func mergeExercised(sums []summary) *sim.Coverage {
	var all sim.Coverage
	for _, s := range sums {
		if s.Exercised == nil {
			return nil
		}
		all.Add(s.Exercised)
	}
	return &all
}

// writeExercised words what the schedules exercised under the summary's
// counts: the requests and waits, each fault kind by what it landed on,
// deadlines, session states, watch events, and what never happened.
func writeExercised(w io.Writer, cov *sim.Coverage) {
	if cov == nil {
		return
	}
	fmt.Fprintf(w, "  %-22s %d runs: what the faults landed on, and what no run met\n", "exercised", simhook.CoverageRuns(cov))
	io.WriteString(w, simhook.CoverageRows(cov, "    ", 20, 74))
}
