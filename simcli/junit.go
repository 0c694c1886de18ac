package simcli

import (
	"encoding/xml"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/zksim/zksim/check"
)

// The JUnit XML report (-junit FILE) is the shape Jenkins' junit plugin,
// GitLab and the GitHub Actions JUnit reporters read: <testsuites> holding
// one <testsuite>, whose <properties> say what ran, and one <testcase> per
// violation class found, failing, with the class's first failing schedule
// (and for the first failure's class its saved counterexample); a clean
// run has one passing testcase, "no violation". A run stopped by Ctrl-C
// before any violation has that testcase in error. Test names are the
// violation classes, so a dashboard's history follows each class across
// runs.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
}

// junitProblem is a <failure> or an <error>.
type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// junitVerdict is what a JUnit report says, from a run or a merge.
type junitVerdict struct {
	suite      string // e.g. "zksim run zoo/assumeonwake"
	classname  string // every testcase's
	properties []junitProperty
	schedules  int
	classes    map[check.Class]int               // failing schedules per class
	firsts     map[check.Class]jsonFailureObject // each class's first failing schedule
	ce         *jsonFailureObject                // the saved counterexample, if any
	problem    string                            // why the run cannot count as passed without a violation (Ctrl-C, missing shards); "" none
	texts      map[check.Class]string            // a class's testcase text in place of failureText's (a real run's); nil none
	elapsed    time.Duration
}

// cases are the testcases: one per class, worst first, or one passing
// "no violation"; with v.problem, "no violation" is in error, or with
// failures an errored "complete" is added.
func (v junitVerdict) cases() []junitCase {
	classes := slices.Sorted(maps.Keys(v.classes))
	sortBySeverity(classes)
	var cases []junitCase
	for _, class := range classes {
		f, ok := v.firsts[class]
		var ce *jsonFailureObject
		if v.ce != nil && v.ce.Class == class {
			ce = v.ce
			if !ok {
				f, ok = *ce, true
			}
		}
		msg := fmt.Sprintf("%d of %d schedules", v.classes[class], v.schedules)
		if ok {
			msg += fmt.Sprintf("; first: seed %d: %s", f.Seed, f.Message)
		}
		text, ok := v.texts[class]
		if !ok {
			text = failureText(f, ce)
		}
		cases = append(cases, junitCase{Name: string(class), Classname: v.classname,
			Failure: &junitProblem{Message: msg, Type: string(class), Text: text}})
	}
	switch {
	case len(cases) == 0:
		c := junitCase{Name: "no violation", Classname: v.classname}
		if v.problem != "" {
			c.Error = &junitProblem{Message: v.problem, Type: "incomplete"}
		}
		cases = append(cases, c)
	case v.problem != "":
		cases = append(cases, junitCase{Name: "complete", Classname: v.classname,
			Error: &junitProblem{Message: v.problem, Type: "incomplete"}})
	}
	return cases
}

// failureText is a failing testcase's body: its first failing schedule
// and, for the class of the saved counterexample ce (nil for the
// others), the counterexample's file, replay command and trace.
func failureText(f jsonFailureObject, ce *jsonFailureObject) string {
	var b strings.Builder
	if f.Class != "" {
		fmt.Fprintf(&b, "first failing schedule: seed %d: %s: %s\n", f.Seed, joinClasses(f.Classes), f.Message)
	}
	if ce == nil {
		if f.TraceFile != "" {
			fmt.Fprintf(&b, "trace:  %s (minimized)\nreplay: %s\n", f.TraceFile, f.Replay)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "minimal counterexample, %d clients x %d acquisitions: %s\n", ce.Workload.Clients, ce.Workload.Acquisitions, ce.Message)
	if ce.TraceFile != "" {
		fmt.Fprintf(&b, "trace:  %s\nreplay: %s\n", ce.TraceFile, ce.Replay)
	}
	fmt.Fprintf(&b, "\n%s\n", strings.Join(ce.Trace, "\n"))
	return b.String()
}

// document is the whole report.
func (v junitVerdict) document() junitSuites {
	cases := v.cases()
	secs := fmt.Sprintf("%.3f", v.elapsed.Seconds())
	s := junitSuite{Name: v.suite, Tests: len(cases), Time: secs, Properties: v.properties, Cases: cases}
	for _, c := range cases {
		if c.Failure != nil {
			s.Failures++
		}
		if c.Error != nil {
			s.Errors++
		}
	}
	return junitSuites{Name: "zksim", Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Time: secs, Suites: []junitSuite{s}}
}

// writeJUnit writes v's report to path.
func writeJUnit(path string, v junitVerdict) error {
	b, err := xml.MarshalIndent(v.document(), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(append([]byte(xml.Header), b...), '\n'), 0o644)
}

// junitVerdict is the verdict of a run with summary s.
func (rc runConfig) junitVerdict(s summary, c *ciOutput, elapsed time.Duration) junitVerdict {
	v := junitVerdict{suite: rc.cli.name() + " run " + rc.subject.Name(), classname: rc.cli.name() + "." + rc.subject.Name(),
		properties: summaryProperties(s), schedules: s.Schedules, classes: s.Classes, firsts: c.firsts, ce: c.ce, elapsed: elapsed}
	if s.Stopped == errInterrupted.Error() && s.Failing == 0 {
		v.problem = fmt.Sprintf("stopped by Ctrl-C after %d schedules", s.Schedules)
	}
	return v
}

// summaryProperties are what ran, as JUnit properties.
func summaryProperties(s summary) []junitProperty {
	p := []junitProperty{{"run", s.Run}, {"seed", fmt.Sprint(s.Seed)}, {"seeds", s.Seeds},
		{"shards", fmt.Sprint(s.Shards)}, {"schedules", fmt.Sprint(s.Schedules)}}
	if s.Stopped != "" {
		p = append(p, junitProperty{"stopped", s.Stopped})
	}
	if s.Coverage != nil {
		p = append(p, junitProperty{"coverage", s.Coverage.String()})
	}
	return p
}
