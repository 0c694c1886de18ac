package simcli_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/simcli"
	"github.com/zksim/zksim/zoo"
)

// realReports is what a real run with -json, -junit and -out wrote.
type realReports struct {
	seed  int
	code  int
	lines []map[string]any // the JSON lines on stdout
	junit []byte
	html  []string // the files in -out
	text  string   // stderr: the text report
}

// runRealReports runs the lost create (zoo's noguid-retry) on the fake
// under lost replies, which leaves an orphan, asking for every report.
//
// Which request a lost reply strikes depends on timing as well as on the
// seed, so seeds are tried until one loses a create's reply.
func runRealReports(t *testing.T, addr string) realReports {
	t.Helper()
	for seed := 2; seed <= 11; seed++ {
		if r := runRealReportsSeed(t, addr, seed); simcli.LostCreateReply.MatchString(r.text) {
			return r
		}
	}
	t.Fatal("no seed from 2 to 11 lost a create's reply")
	return realReports{}
}

func runRealReportsSeed(t *testing.T, addr string, seed int) realReports {
	t.Helper()
	ex, _ := zoo.Lookup(zoo.NameNoGUIDRetry)
	dir := t.TempDir()
	junit, out := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	cli := &simcli.CLI{Name: "zksim", Recipes: []recipe.Lock{ex.Recipe}}
	code := cli.Run([]string{"run", "-servers", addr, "-recipe", ex.Name, "-clients", "2", "-acquisitions", "3", "-seed", strconv.Itoa(seed),
		"-faults", "lose-reply=3", "-time", "3s", "-json", "-junit", junit, "-out", out}, &stdout, &stderr)
	r := realReports{seed: seed, code: code, text: stderr.String()}
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout line %q is not JSON: %v\nstderr:\n%s", l, err, r.text)
		}
		r.lines = append(r.lines, m)
	}
	r.junit, _ = os.ReadFile(junit)
	r.html, _ = filepath.Glob(filepath.Join(out, "*.html"))
	return r
}

// A real run writes the simulated run's -json objects (a failure, then
// the summary) with its seed, fault schedule, injections and violations;
// a JUnit file with a failing testcase for the violation; and an HTML
// report naming the faults and the violation.
func TestRunReal_Reports(t *testing.T) { checkReports(t, runRealReports(t, fakeServer(t))) }

// The same on a real ZooKeeper server (scripts/zk.sh start DIR 1).
func TestRunReal_ReportsOnZooKeeper(t *testing.T) {
	checkReports(t, runRealReports(t, strings.Join(zktest.Standalone(t), ",")))
}

func checkReports(t *testing.T, r realReports) {
	t.Helper()
	if r.code != simcli.ExitViolation {
		t.Fatalf("exit %d, want %d\n%s", r.code, simcli.ExitViolation, r.text)
	}
	t.Run("json", func(t *testing.T) {
		if len(r.lines) != 2 || r.lines[0]["type"] != "failure" || r.lines[1]["type"] != "summary" {
			t.Fatalf("want a failure and a summary, got %v", r.lines)
		}
		f := r.lines[0]
		if f["seed"] != float64(r.seed) || f["class"] != string(check.Orphan) || f["faults"] != "lose-reply=3" {
			t.Errorf("failure object: %v", f)
		}
		for _, obj := range r.lines {
			real, _ := obj["real"].(map[string]any)
			sched, _ := real["fault_schedule"].([]any)
			ins, _ := real["injected"].([]any)
			vs, _ := real["violations"].([]any)
			if len(sched) != 3 || len(ins) == 0 || ins[0].(map[string]any)["kind"] != "lose-reply" {
				t.Errorf("%s: schedule %v, injected %v", obj["type"], sched, ins)
			}
			if len(vs) == 0 || vs[0].(map[string]any)["class"] != string(check.Orphan) {
				t.Errorf("%s: violations %v", obj["type"], vs)
			}
		}
	})
	t.Run("junit", func(t *testing.T) {
		var doc struct {
			Failures int `xml:"failures,attr"`
			Suite    struct {
				Cases []struct {
					Name    string `xml:"name,attr"`
					Failure *struct {
						Text string `xml:",cdata"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(r.junit, &doc); err != nil {
			t.Fatalf("%v\n%s", err, r.junit)
		}
		cs := doc.Suite.Cases
		if doc.Failures != 1 || len(cs) != 1 || cs[0].Name != string(check.Orphan) || cs[0].Failure == nil ||
			!strings.Contains(cs[0].Failure.Text, "lose-reply") {
			t.Errorf("want one failing orphan testcase naming the lost reply:\n%s", r.junit)
		}
	})
	t.Run("html", func(t *testing.T) {
		if len(r.html) != 1 {
			t.Fatalf("HTML reports in -out: %v\n%s", r.html, r.text)
		}
		b, _ := os.ReadFile(r.html[0])
		page := string(b)
		for _, want := range []string{"lose-reply=3", "seed", "lose-reply c", string(check.Orphan), "still has", "got no reply at step", `class="viol"`} {
			if !strings.Contains(page, want) {
				t.Errorf("the report lacks %q", want)
			}
		}
		if !strings.Contains(r.text, "report:   "+r.html[0]) {
			t.Errorf("the text report does not name the HTML file\n%s", r.text)
		}
	})
}

// With -out given, a clean real run writes its report too: the clients'
// holds and acquire waits as rows, in steps of the recorded history.
func TestRunReal_ReportWithoutViolation(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, text := runReal(t, fakeServer(t), []recipe.Lock{zoo.Mutex()}, "-recipe", "lock", "-clients", "2", "-acquisitions", "2",
		"-seed", "1", "-faults", "disconnect", "-out", out)
	pages, _ := filepath.Glob(filepath.Join(out, "*.html"))
	if code != simcli.ExitOK || len(pages) != 1 {
		t.Fatalf("exit %d, reports %v\n%s", code, pages, text)
	}
	b, _ := os.ReadFile(pages[0])
	page := string(b)
	if n := strings.Count(page, `class="hold exclusive`); n != 4 {
		t.Errorf("%d holds drawn, want 4", n)
	}
	for _, want := range []string{`class="wait"`, "disconnect c", "no violation", "-seed 1 -faults disconnect=1"} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}
