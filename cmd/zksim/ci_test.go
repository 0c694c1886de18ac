package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// jsonLines parses run -json's stdout: every line one JSON object.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var o map[string]any
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatalf("stdout line is not a JSON object: %v\n%s", err, line)
		}
		objs = append(objs, o)
	}
	return objs
}

func hasFields(t *testing.T, o map[string]any, fields ...string) {
	t.Helper()
	for _, f := range fields {
		if _, ok := o[f]; !ok {
			t.Errorf("%v object lacks %q: %v", o["type"], f, o)
		}
	}
}

// TestRunJSON_FailuresThenCounterexampleThenSummary: -json writes only
// JSON lines on stdout, each failing schedule in schedule order with the
// fields of docs/cli.md, then the saved counterexample, then the summary; the
// text report goes to stderr.
func TestRunJSON_FailuresThenCounterexampleThenSummary(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := run([]string{"run", "-recipe", "zoo/assumeonwake", "-schedules", "40", "-json", "-out", dir}, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	objs := jsonLines(t, out.String())
	failures, last := 0, -1.0
	for _, o := range objs[:len(objs)-2] {
		hasFields(t, o, "seed", "schedule", "class", "classes", "message", "recipe", "workload", "faults")
		if o["type"] != "failure" || o["schedule"].(float64) <= last || o["seed"].(float64) != o["schedule"].(float64)+1 {
			t.Errorf("not a failure after schedule %v: %v", last, o)
		}
		last = o["schedule"].(float64)
		failures++
	}
	ce, sum := objs[len(objs)-2], objs[len(objs)-1]
	hasFields(t, ce, "seed", "schedule", "class", "message", "trace_file", "trace", "replay", "workload", "faults")
	if ce["type"] != "counterexample" || ce["seed"] != objs[0]["seed"] || ce["class"] != "mutual-exclusion" {
		t.Errorf("counterexample: %v", ce)
	}
	if _, err := os.Stat(ce["trace_file"].(string)); err != nil || len(ce["trace"].([]any)) == 0 {
		t.Errorf("counterexample's trace: %v, %v", err, ce["trace"])
	}
	hasFields(t, sum, "schedules", "classes", "exhausted", "elapsed_seconds", "exit", "recipe", "workload", "faults", "first_failure")
	if sum["type"] != "summary" || sum["schedules"] != 40.0 || sum["failing"] != float64(failures) || sum["exhausted"] != true || sum["exit"] != 1.0 ||
		sum["classes"].(map[string]any)["mutual-exclusion"] != float64(failures) {
		t.Errorf("summary after %d failures: %v", failures, sum)
	}
	if failures < 2 || !strings.Contains(errb.String(), "first failure: seed") {
		t.Errorf("%d failures; stderr:\n%s", failures, errb.String())
	}
}

// TestRunJSON_SameBytesWhateverParallel: apart from elapsed_seconds, the
// output is the seeds' and flags' alone.
func TestRunJSON_SameBytesWhateverParallel(t *testing.T) {
	dir := t.TempDir()
	elapsed := regexp.MustCompile(`"elapsed_seconds":[0-9.e+-]+`)
	var want string
	for _, parallel := range []string{"1", "2"} {
		var out bytes.Buffer
		run([]string{"run", "-recipe", "zoo/assumeonwake", "-schedules", "100", "-parallel", parallel, "-json", "-out", dir}, &out, io.Discard)
		got := elapsed.ReplaceAllString(out.String(), "")
		if want == "" {
			want = got
		} else if got != want {
			t.Errorf("-parallel %s:\n%s\nwant (-parallel 1):\n%s", parallel, got, want)
		}
	}
	if strings.Count(want, `"type":"failure"`) < 2 {
		t.Errorf("want several failures for the test to mean something:\n%s", want)
	}
}

// TestRunJSON_CleanAndExhaustive: a clean run has only its summary; a
// systematic search writes its counterexample (no schedule index) and a
// summary that says it stopped there, not exhausted.
func TestRunJSON_CleanAndExhaustive(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"run", "-schedules", "20", "-json"}, &out, io.Discard); code != 0 {
		t.Fatalf("clean run: exit %d", code)
	}
	if objs := jsonLines(t, out.String()); len(objs) != 1 || objs[0]["type"] != "summary" || objs[0]["failing"] != 0.0 || objs[0]["exhausted"] != true {
		t.Errorf("clean run: %v", objs)
	}
	out.Reset()
	if code := run([]string{"run", "-strategy", "exhaustive", "-recipe", "zoo/noguidretry", "-json", "-out", t.TempDir()}, &out, io.Discard); code != 1 {
		t.Fatalf("exhaustive: exit %d", code)
	}
	objs := jsonLines(t, out.String())
	if len(objs) != 2 || objs[0]["type"] != "counterexample" || objs[0]["schedule"] != nil || objs[1]["exhausted"] != false || objs[1]["coverage"] == nil {
		t.Errorf("exhaustive: %v", objs)
	}
}

// junitDoc is the part of the JUnit XML shape (Jenkins' junit-10.xsd,
// which GitHub's and GitLab's reporters also read) the tests check.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Suites   []struct {
		Name       string `xml:"name,attr"`
		Tests      string `xml:"tests,attr"`
		Failures   string `xml:"failures,attr"`
		Errors     string `xml:"errors,attr"`
		Time       string `xml:"time,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// junitShape checks the file against junit-10.xsd's structure: which
// elements may hold which, and the attributes they need and may have.
func junitShape(t *testing.T, path string) junitDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type rule struct{ children, required, optional string }
	rules := map[string]rule{
		"testsuites": {"testsuite", "", "name time tests failures errors"},
		"testsuite":  {"testsuite properties testcase system-out system-err", "name tests failures errors", "group time skipped timestamp hostname id package file log url"},
		"properties": {"property", "", ""},
		"property":   {"", "name value", ""},
		"testcase":   {"skipped error failure system-out system-err", "name", "time classname group"},
		"failure":    {"", "", "type message"},
		"error":      {"", "", "type message"},
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	stack := []string{""}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: not XML: %v", path, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			name, parent := tok.Name.Local, stack[len(stack)-1]
			if parent == "" && name != "testsuites" || parent != "" && !strings.Contains(" "+rules[parent].children+" ", " "+name+" ") {
				t.Errorf("<%s> inside <%s>", name, parent)
			}
			r := rules[name]
			seen := map[string]bool{}
			for _, a := range tok.Attr {
				seen[a.Name.Local] = true
				if !strings.Contains(" "+r.required+" "+r.optional+" ", " "+a.Name.Local+" ") {
					t.Errorf("<%s %s=...>: not in the schema", name, a.Name.Local)
				}
				if a.Name.Local == "time" && !regexp.MustCompile(`^[0-9]+(\.[0-9]*)?$`).MatchString(a.Value) {
					t.Errorf("<%s time=%q>", name, a.Value)
				}
			}
			for _, a := range strings.Fields(r.required) {
				if !seen[a] {
					t.Errorf("<%s> lacks %s", name, a)
				}
			}
			stack = append(stack, name)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	var doc junitDoc
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d test suites, want 1", len(doc.Suites))
	}
	return doc
}

// TestRunJUnit_FailingAndClean: a failing run has a failing testcase per
// violation class, with its first seed and the counterexample's replay
// command; a clean one a single passing testcase.
func TestRunJUnit_FailingAndClean(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "junit.xml")
	if code := run([]string{"run", "-recipe", "zoo/assumeonwake", "-schedules", "40", "-junit", path, "-out", dir}, io.Discard, io.Discard); code != 1 {
		t.Fatalf("exit %d", code)
	}
	doc := junitShape(t, path)
	s := doc.Suites[0]
	if doc.Tests != 1 || doc.Failures != 1 || len(s.Cases) != 1 || s.Name != "zksim run zoo/assumeonwake" {
		t.Fatalf("failing run: %+v", doc)
	}
	c := s.Cases[0]
	if c.Name != "mutual-exclusion" || c.Failure == nil || c.Failure.Type != "mutual-exclusion" ||
		!strings.Contains(c.Failure.Message, "of 40 schedules; first: seed ") || !strings.Contains(c.Failure.Text, "replay: go run ./cmd/zksim replay ") {
		t.Errorf("failing testcase: %+v", c)
	}

	if code := run([]string{"run", "-schedules", "20", "-junit", path}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("clean run: exit %d", code)
	}
	doc = junitShape(t, path)
	if s := doc.Suites[0]; doc.Tests != 1 || doc.Failures+doc.Errors != 0 || s.Cases[0].Name != "no violation" || s.Cases[0].Failure != nil {
		t.Errorf("clean run: %+v", doc)
	}
}

// TestMergeJSONJUnit: merge -json prints the merged verdict as one
// object, and -junit writes it; a missing shard is an error testcase.
func TestMergeJSONJUnit(t *testing.T) {
	dir := t.TempDir()
	var shards []string
	for _, i := range []string{"0", "1"} {
		shards = append(shards, filepath.Join(dir, i+".json"))
		run([]string{"run", "-recipe", "zoo/assumeonwake", "-schedules", "60", "-shard", i + "/2", "-summary", shards[len(shards)-1], "-out", dir}, io.Discard, io.Discard)
	}
	junit := filepath.Join(dir, "junit.xml")
	var out bytes.Buffer
	if code := run(append([]string{"merge", "-json", "-junit", junit}, shards...), &out, io.Discard); code != 1 {
		t.Fatalf("merge: exit %d\n%s", code, out.String())
	}
	objs := jsonLines(t, out.String())
	if len(objs) != 1 || objs[0]["schedules"] != 60.0 || objs[0]["exhausted"] != true || objs[0]["first_failure"] == nil {
		t.Errorf("merge -json: %v", objs)
	}
	if doc := junitShape(t, junit); doc.Failures == 0 || doc.Errors != 0 {
		t.Errorf("merge -junit: %+v", doc)
	}
	out.Reset()
	run([]string{"merge", "-json", "-junit", junit, shards[0]}, &out, io.Discard)
	if objs := jsonLines(t, out.String()); objs[0]["exhausted"] != false || len(objs[0]["missing_shards"].([]any)) != 1 {
		t.Errorf("merge -json without shard 1: %v", objs)
	}
	if doc := junitShape(t, junit); doc.Errors != 1 {
		t.Errorf("merge -junit without shard 1: %+v", doc)
	}
}

// TestRun_CIFlagsUsage: misused CI flags are usage errors, exit 2 with
// the usage.
func TestRun_CIFlagsUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"run", "-json", "-summary", "s.json", "-servers", "127.0.0.1:1"}, "-summary: for simulated runs only"},
		{[]string{"run", "-junit", "/nonexistent-dir/x.xml", "-servers", "127.0.0.1:1"}, "-junit"},
		{[]string{"run", "-json=maybe"}, "invalid boolean value"},
		{[]string{"run", "-junit"}, "flag needs an argument"},
		{[]string{"merge", "-junit"}, "flag needs an argument"},
		{[]string{"version", "extra"}, `unexpected argument "extra"`},
		{[]string{"version", "-yaml"}, "flag provided but not defined"},
	} {
		var errb bytes.Buffer
		code := run(tc.args, io.Discard, &errb)
		if code != 2 || !strings.Contains(errb.String(), tc.msg) || !strings.Contains(errb.String(), "usage: ") {
			t.Errorf("%v: exit %d\n%s", tc.args, code, errb.String())
		}
	}
}

func TestVersion_TextAndJSON(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"version"}, &out, io.Discard); code != 0 || !strings.HasPrefix(out.String(), "zksim ") ||
		!strings.Contains(out.String(), "module    github.com/zksim/zksim\n") || !strings.Contains(out.String(), "go        go1.") {
		t.Errorf("version: exit %d\n%s", code, out.String())
	}
	out.Reset()
	var v map[string]any
	if code := run([]string{"version", "-json"}, &out, io.Discard); code != 0 || json.Unmarshal(out.Bytes(), &v) != nil ||
		v["module"] != "github.com/zksim/zksim" || v["version"] == "" || !strings.HasPrefix(v["go"].(string), "go1.") {
		t.Errorf("version -json: exit %d\n%s", code, out.String())
	}
}
