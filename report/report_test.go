package report_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/report"
)

// sample is a small failure in sim's trace form: c2 crashes, c3 and c4
// hold at once.
func sample() report.Failure {
	return report.Failure{
		Title:  "zoo/deletefirstchild",
		Seed:   "3",
		Faults: "percent=10 crash=1",
		Violations: []check.Violation{
			{Class: check.Herd, Detail: "one change (zxid 19) woke 2 clients, at most 1 could proceed"},
			{Class: check.MutualExclusion, Detail: "c3 (exclusive, 6-9) and c4 (exclusive, 8-10) both held /locks/l"},
		},
		Clients: 4,
		Holds: []linearize.Hold{
			{Client: 0, Lock: "/locks/l", Call: 1, Start: 2, End: 4},
			{Client: 2, Lock: "/locks/l", Call: 3, Start: 6, End: 9},
			{Client: 3, Lock: "/locks/l", Call: 3, Start: 8, End: 10},
		},
		Expiries: []report.Expiry{{Step: 7, Client: 0}},
		Trace: []string{
			"    1 t0   send c1 create /locks/l/lock- \"c1_0\" ephemeral-sequential -> z=14 OK",
			"    2 t0   recv c1 reply",
			"    2 t0   c1: holds /locks/l (exclusive)",
			"    3 t0   crash c2",
			"    4 t1   tick",
			"    5 t1   lose-reply c4 create /locks/l/lock- \"c4_0\" -> z=16 OK <x>",
			"    6 t1   c3: holds /locks/l (exclusive)",
			"    8 t1   c4: holds /locks/l (exclusive)",
			"   10 t2   recv c4 reply",
		},
	}
}

func write(t *testing.T, f report.Failure) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.Write(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWrite_VerdictAndRun(t *testing.T) {
	page := write(t, sample())
	for _, want := range []string{
		`<h1>mutual-exclusion (and 1 more)</h1>`,
		"c3 (exclusive, 6-9) and c4 (exclusive, 8-10) both held /locks/l",
		"zoo/deletefirstchild", "percent=10 crash=1", "in this run: crash 1, lost reply 1, expiry 1",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(page, "Porcupine") || strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Error("report names porcupine or loads something from the network")
	}
	if strings.Contains(page, "<x>") {
		t.Error("trace text not escaped")
	}
}

func TestWrite_ClientRows(t *testing.T) {
	page := write(t, sample())
	rows := regexp.MustCompile(`<text class="name" x="8" y="[0-9.]+">(c[0-9]+)</text>`).FindAllStringSubmatch(page, -1)
	var names []string
	for _, r := range rows {
		names = append(names, r[1])
	}
	if got := strings.Join(names, " "); got != "c1 c2 c3 c4" {
		t.Errorf("timeline rows %q, want c1 c2 c3 c4", got)
	}
}

func TestWrite_CrashIsNotARelease(t *testing.T) {
	page := write(t, sample())
	if !strings.Contains(page, "<title>c2 crashed at step 3</title>") {
		t.Error("no crash band on c2's row")
	}
	if !strings.Contains(page, "<title>step 3 (t0): crash c2</title>") {
		t.Error("no crash mark with its step")
	}
}

func TestWrite_ViolatingSteps(t *testing.T) {
	page := write(t, sample())
	if got := badSteps(page); got != "6 8 10" {
		t.Errorf("highlighted trace steps %q, want 6 8 10 (the holds' starts and ends that are in the trace)", got)
	}
	if n := strings.Count(page, `class="hold exclusive bad"`); n != 2 {
		t.Errorf("%d holds drawn as violating, want 2", n)
	}

	f := sample()
	f.Steps = []int{4} // the checkers' own steps win over the wording
	if page := write(t, f); !strings.Contains(page, `<tr id="s4" class="bad"`) || strings.Contains(page, `<tr id="s6" class="bad"`) {
		t.Error("Failure.Steps not used for the highlight")
	}
}

func TestWrite_Deterministic(t *testing.T) {
	first, second := write(t, sample()), write(t, sample())
	if first != second {
		t.Error("two reports of one failure differ")
	}
}

// badSteps lists the trace steps a report highlights, in order.
func badSteps(page string) string {
	bad := regexp.MustCompile(`<tr(?: id="s[0-9]+")? class="bad" data-x="[0-9.]+"><td class="n">([0-9]+)</td>`).FindAllStringSubmatch(page, -1)
	var steps []string
	for _, m := range bad {
		steps = append(steps, m[1])
	}
	return strings.Join(steps, " ")
}

// A herd's violation names a zxid: the write that made that change and
// the notifications it sent before the next write are highlighted, not
// reads that show the same zxid.
func TestWrite_HerdSteps(t *testing.T) {
	f := report.Failure{
		Title:      "zoo/dirwatch",
		Violations: []check.Violation{{Class: check.Herd, Detail: "one change (zxid 13) woke 2 clients, at most 1 could proceed"}},
		Trace: []string{
			"   11 t0   send c1 create /locks/l/lock- \"c1_0\" ephemeral-sequential -> z=13 OK path=/locks/l/lock-0000000001",
			"   12 t0   recv c2 NodeChildrenChanged /locks/l",
			"   13 t0   send c3 children /locks/l -> z=13 OK children=[lock-0000000001]",
			"   14 t0   recv c3 NodeChildrenChanged /locks/l",
			"   15 t0   recv c3 NodeDeleted /locks/m",
			"   16 t0   send c1 delete /locks/l/lock-0000000001 v=-1 -> z=14 OK",
			"   17 t0   recv c2 NodeChildrenChanged /locks/l",
		},
	}
	if got := badSteps(write(t, f)); got != "11 12 14" {
		t.Errorf("highlighted %q, want 11 12 14", got)
	}
}

// An orphan's violation names nodes: their creates are highlighted.
func TestWrite_OrphanSteps(t *testing.T) {
	f := report.Failure{
		Title:      "zoo/gozk",
		Violations: []check.Violation{{Class: check.Orphan, Detail: "/locks/l still has [lock-0000000002] after all clients finished"}},
		Trace: []string{
			"    1 t0   send c1 create /locks/l/lock- \"c1_0\" ephemeral-sequential -> z=13 OK path=/locks/l/lock-0000000001",
			"    2 t0   lose-reply c2 create /locks/l/lock- \"c2_0\" ephemeral-sequential -> z=14 OK path=/locks/l/lock-0000000002",
		},
	}
	if got := badSteps(write(t, f)); got != "2" {
		t.Errorf("highlighted %q, want 2", got)
	}
}

// A deadlock's waiting clients are drawn waiting from their last step to
// the end, and the step it names is highlighted.
func TestWrite_DeadlockWaiters(t *testing.T) {
	f := report.Failure{
		Title:      "zoo/noguidretry",
		Violations: []check.Violation{{Class: check.Deadlock, Detail: "only time could advance at step 5 while c2, c3 waited"}},
		Clients:    3,
		Trace: []string{
			"    1 t0   send c2 children /locks/l -> z=13 OK",
			"    2 t0   send c3 get /locks/l/lock-0000000001 watch -> z=13 OK",
			"    3 t0   send c1 delete /locks/l/lock-0000000000 v=-1 -> z=14 OK",
			"    4 t1   tick",
			"    5 t2   tick",
		},
	}
	page := write(t, f)
	for _, want := range []string{"<title>c2 waits from step 1 to the end</title>", "<title>c3 waits from step 2 to the end</title>"} {
		if !strings.Contains(page, want) {
			t.Errorf("no %q", want)
		}
	}
	if strings.Contains(page, "<title>c1 waits") {
		t.Error("c1 drawn waiting")
	}
	if got := badSteps(page); got != "5" {
		t.Errorf("highlighted %q, want 5", got)
	}
}

// A pause is drawn from its step to the first step of the virtual time it
// ends at.
func TestWrite_Pause(t *testing.T) {
	f := report.Failure{
		Title: "lock",
		Trace: []string{
			"    1 t0   pause c1 for 2 ticks",
			"    2 t1   tick",
			"    3 t1   send c2 children /locks/l -> z=13 OK",
			"    4 t2   tick",
			"    5 t2   recv c2 reply",
		},
	}
	if page := write(t, f); !strings.Contains(page, "<title>c1 paused: steps 1-4</title>") {
		t.Error("no pause from step 1 to step 4")
	}
}

// Steps with a suffix still land on the timeline at their number.
func TestWrite_StepSuffix(t *testing.T) {
	f := report.Failure{Title: "lock", Trace: []string{"   39 t0   recv c1 reply", "   39.1 t0   crash c2"}}
	if page := write(t, f); !strings.Contains(page, "<title>step 39 (t0): crash c2</title>") {
		t.Error("a step with a suffix not drawn")
	}
}

// The worst violation's cause is shown under its detail, listed step by
// step, drawn on the timeline as numbered marks joined by arrows (the
// first the cause, on the row of the client it names), and said on its
// trace rows; notes are shown apart.
func TestWrite_CauseChain(t *testing.T) {
	f := sample()
	f.Violations[1].Cause = "c4's lost create made it hold beside c3"
	f.Violations[1].Chain = []check.Link{{Step: 3, What: "c4 called"}, {Step: 5, What: "c4 lost its create's reply", Root: true},
		{Step: 8, What: "c4 acquired beside c3"}}
	f.Notes = []check.Violation{{Class: check.StaleWakeup, Detail: "one change woke 2", Cause: "c2 woke stale"}}
	page := write(t, f)
	for _, want := range []string{
		`<span class="cause">cause: c4&#39;s lost create made it hold beside c3</span>`,
		`<li><a href="#s5">step 5</a>: c4 lost its create&#39;s reply <b>(the cause)</b></li>`,
		`<li><a href="#s8">step 8</a>: c4 acquired beside c3</li>`,
		`<g id="chain">`, `marker-end="url(#arrow)"`, `<g class="link root"><title>cause 2 of 3, step 5: c4 lost its create&#39;s reply</title>`,
		`<text class="root"`, `<g class="link"><title>cause 3 of 3, step 8: c4 acquired beside c3</title>`,
		`<span class="why">&larr; cause 2: c4 lost its create&#39;s reply</span>`,
		`<div id="notes">`, "stale-wakeup: one change woke 2; cause: c2 woke stale",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// c4's marks are on c4's row, the fourth: 22+22+3*44 down, and half
	// a row.
	if !regexp.MustCompile(`<circle cx="[0-9.]+" cy="201\.0" r="8"/>`).MatchString(page) {
		t.Errorf("the chain's marks are not on c4's row")
	}
}

// A real run's member fault ("member 2 pause-member: ...") is a server
// event: a mark on the time row, not on a client's.
func TestWrite_MemberFault(t *testing.T) {
	f := report.Failure{
		Title: "lock on real servers",
		Trace: []string{
			"    1 t0 acquire c1",
			"    2 t1200 member 2 pause-member: stopped (SIGSTOP) for 2s",
			"    3 t3200 member 2 pause-member: continued (SIGCONT)",
		},
	}
	page := write(t, f)
	if n := strings.Count(page, `<g class="mark"><title>step `); n != 2 || !strings.Contains(page, "member 2 pause-member: stopped") {
		t.Errorf("%d marks, want the member's 2 on the time row", n)
	}
}
