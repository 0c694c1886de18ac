package simcli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/nemesis"
)

// A real run's -json, -junit and HTML reports use the simulated run's
// schema (cijson.go, junit.go): one run is one "schedule", and the
// object "real" adds what only a real run has: the servers, the fault
// schedule drawn from the seed, what was injected and when, and the
// violations with their classes. A real run cannot be replayed; its
// seed and fault schedule repeat it as closely as real servers allow.

// jsonReal is a real run's own part of its JSON objects.
type jsonReal struct {
	Servers     []string        `json:"servers"`
	Ensemble    int             `json:"ensemble,omitempty"` // servers the run started; 0 with -servers
	Schedule    []jsonFault     `json:"fault_schedule"`     // drawn from the seed
	Injected    []jsonInjection `json:"injected"`           // in time order
	NotInjected []jsonFault     `json:"not_injected"`
	Violations  []jsonViolation `json:"violations"`
	Holds       int             `json:"holds"`
	Report      string          `json:"report_file,omitempty"` // the HTML report
	Rerun       string          `json:"rerun"`                 // the command that runs it again
}

// jsonFault is one fault of the schedule: client and member from 1, 0
// for none (a member fault on the leader has leader true).
type jsonFault struct {
	Kind      string  `json:"kind"`
	Client    int     `json:"client,omitempty"`
	Member    int     `json:"member,omitempty"`
	Leader    bool    `json:"leader,omitempty"`
	AtRequest int64   `json:"at_request"`
	For       float64 `json:"for_seconds,omitempty"`
	Text      string  `json:"text"`
}

// jsonInjection is one fault as injected, its time since the run began.
type jsonInjection struct {
	At      float64 `json:"at_seconds"`
	Kind    string  `json:"kind"`
	Client  int     `json:"client,omitempty"`
	Member  int     `json:"member,omitempty"`
	Request int64   `json:"request,omitempty"`
	What    string  `json:"what"`
}

type jsonViolation struct {
	Class  check.Class `json:"class"`
	Detail string      `json:"detail"`
	Cause  string      `json:"cause,omitempty"`
}

func faultJSON(f nemesis.Fault) jsonFault {
	return jsonFault{Kind: f.Kind, Client: f.Client + 1, Member: f.Member + 1, Leader: f.Client < 0 && f.Member < 0,
		AtRequest: f.At, For: f.For.Seconds(), Text: f.String()}
}

// injections are what the nemesis injected, on the history's clock.
func (r *realRun) injections() []nemesis.Injection {
	if r.nem == nil {
		return nil
	}
	ins := r.nem.Injections()
	for i := range ins {
		ins[i].At += time.Duration(r.nemesisAt)
	}
	return ins
}

// realJSON is the run's "real" object.
func (r *realRun) realJSON(vs []check.Violation, html string) *jsonReal {
	j := &jsonReal{Servers: r.rc.servers, Ensemble: r.rc.ensemble, Holds: len(r.holds), Report: html, Rerun: r.rerun(),
		Schedule: []jsonFault{}, Injected: []jsonInjection{}, NotInjected: []jsonFault{}, Violations: []jsonViolation{}}
	for _, f := range r.schedule {
		j.Schedule = append(j.Schedule, faultJSON(f))
	}
	for _, in := range r.injections() {
		j.Injected = append(j.Injected, jsonInjection{At: in.At.Seconds(), Kind: in.Kind, Client: in.Client + 1,
			Member: in.Member + 1, Request: in.Request, What: in.What})
	}
	if r.nem != nil {
		for _, f := range r.nem.Missed() {
			j.NotInjected = append(j.NotInjected, faultJSON(f))
		}
	}
	for _, v := range vs {
		j.Violations = append(j.Violations, jsonViolation{Class: v.Class, Detail: v.Detail, Cause: v.Cause})
	}
	return j
}

// rerun is the command that runs the same workload with the same seed
// and faults again.
func (r *realRun) rerun() string {
	rc := r.rc
	where := "-servers " + strings.Join(rc.servers, ",")
	if rc.ensemble > 0 {
		where = fmt.Sprintf("-ensemble %d", rc.ensemble)
	}
	each := fmt.Sprintf(" -acquisitions %d", rc.workload.Acquisitions)
	if rc.subject.Shape().Unit == "" { // the single barrier: one round
		each = ""
	}
	s := fmt.Sprintf("%s run %s -recipe %s -clients %d%s -seed %d -faults %s",
		rc.cli.replayCommand(), where, rc.subject.Name(), rc.workload.Clients, each, rc.plan.seed, rc.real)
	if rc.recipe.AcquireRead != nil {
		s += fmt.Sprintf(" -read %d", rc.workload.ReadPercent)
	}
	if rc.workload.Unfenced {
		s += " -unfenced"
	}
	if rc.budget > 0 {
		s += " -time " + rc.budget.String()
	}
	return s
}

// writeReports writes what -json, -junit and -out ask for, once the run
// is over: the HTML report on a violation (or with -out given), then
// the JSON lines on jsonw and the JUnit file, both naming it.
func (r *realRun) writeReports(jsonw, text io.Writer, elapsed time.Duration, vs []check.Violation, stopped error) error {
	var errs []error
	html := ""
	if len(vs) > 0 || r.rc.outSet {
		path, err := r.writeHTML(vs)
		if err != nil {
			errs = append(errs, fmt.Errorf("-out: %v", err))
		} else {
			html = path
			fmt.Fprintf(text, "report:   %s\n", path)
		}
	}
	real := r.realJSON(vs, html)
	s := r.summary(vs, stopped)
	rc := r.rc
	rc.workload.TimeoutTicks, rc.workload.TimeoutPercent = 0, 0 // a real run sets no deadlines
	if rc.asJSON {
		enc := json.NewEncoder(jsonw)
		enc.SetEscapeHTML(false)
		if len(vs) > 0 {
			f := rc.failureObject(jsonFailure, rc.plan.seed, rc.subject, vs)
			f.Faults, f.Real = rc.real.String(), real
			_ = enc.Encode(f)
		}
		_ = enc.Encode(jsonSummaryObject{Type: jsonSummary, Workload: rc.workloadJSON(rc.subject), Faults: rc.real.String(),
			Strategy: "real", summary: s, Exhausted: !errors.Is(stopped, errInterrupted), Elapsed: elapsed.Seconds(), Real: real})
	}
	if r.rc.junit != "" {
		if err := writeJUnit(r.rc.junit, r.junitVerdict(s, vs, real, elapsed)); err != nil {
			errs = append(errs, fmt.Errorf("-junit: %v", err))
		}
	}
	return errors.Join(errs...)
}

// summary is the run's verdict in the -summary fields: one "schedule".
func (r *realRun) summary(vs []check.Violation, stopped error) summary {
	rc := r.rc
	s := summary{Run: rc.describe() + ", real servers", Recipe: rc.subject.Name(), Seed: rc.plan.seed, Total: 1, Shards: 1,
		Schedules: 1, Seeds: fmt.Sprintf("seed %d on real servers", rc.plan.seed), Classes: map[check.Class]int{}, Exit: ExitOK}
	if stopped != nil {
		s.Stopped = stopped.Error()
	}
	if len(vs) > 0 {
		classes := worstFirst(vs)
		s.Failing, s.Exit = 1, ExitViolation
		for _, c := range classes {
			s.Classes[c] = 1
		}
		s.First = &firstFailure{Seed: rc.plan.seed, Classes: classes, Message: firstMessage(vs, classes[0])}
	} else if errors.Is(stopped, errInterrupted) {
		s.Exit = ExitInterrupted
	}
	return s
}

// junitVerdict is the JUnit report of a real run: a failing testcase per
// violation class, its text every violation of the class, the faults
// injected and the command that runs it again.
func (r *realRun) junitVerdict(s summary, vs []check.Violation, real *jsonReal, elapsed time.Duration) junitVerdict {
	rc := r.rc
	firsts, texts := map[check.Class]jsonFailureObject{}, map[check.Class]string{}
	for _, c := range worstFirst(vs) {
		var b strings.Builder
		for _, v := range vs {
			if v.Class == c {
				fmt.Fprintf(&b, "%v\n", v)
			}
		}
		fmt.Fprintf(&b, "\nfaults: %s, seed %d\n", rc.real, rc.plan.seed)
		for _, in := range real.Injected {
			fmt.Fprintf(&b, "  +%.3fs %s: %s\n", in.At, in.Kind, in.What)
		}
		if real.Report != "" {
			fmt.Fprintf(&b, "report: %s\n", real.Report)
		}
		fmt.Fprintf(&b, "rerun:  %s\n", real.Rerun)
		f := rc.failureObject(jsonFailure, rc.plan.seed, rc.subject, vs)
		f.Class, f.Message = c, firstMessage(vs, c)
		firsts[c], texts[c] = f, b.String()
	}
	props := append(summaryProperties(s), junitProperty{"servers", strings.Join(rc.servers, ",")},
		junitProperty{"faults", rc.real.String()}, junitProperty{"injected", fmt.Sprint(len(real.Injected))})
	v := junitVerdict{suite: rc.cli.name() + " run " + rc.subject.Name() + " (real servers)", classname: rc.cli.name() + "." + rc.subject.Name(),
		properties: props, schedules: 1, classes: s.Classes, firsts: firsts, texts: texts, elapsed: elapsed}
	if s.Stopped == errInterrupted.Error() && len(vs) == 0 {
		v.problem = "stopped by Ctrl-C"
	}
	return v
}
