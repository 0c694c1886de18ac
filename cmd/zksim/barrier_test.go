package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zksim/zksim/zoo"
)

// Every barrier zoo exhibit, run by its name under barrier/, fails with
// its class, its minimized counterexample is saved, and replay prints
// the saved trace byte for byte with the same verdict: random walk, PCT
// and the systematic search alike.
func TestRunBarrier_ZooFailureSavedAndReplayed(t *testing.T) {
	for _, ex := range zoo.Barriers() {
		for _, strategy := range []string{"random", "pct", "exhaustive"} {
			name := ex.Name
			t.Run(name+"/"+strategy, func(t *testing.T) {
				dir := t.TempDir()
				args := []string{"run", "-recipe", name, "-strategy", strategy, "-out", dir, "-parallel", "1"}
				if strategy != "exhaustive" {
					args = append(args, "-schedules", "300")
				}
				code, out, errb := runOut(t, args...)
				m := regexp.MustCompile(`(?m)^trace: +(\S+)$`).FindStringSubmatch(out)
				if code != 1 || m == nil || !strings.HasPrefix(out, "zksim run: "+name+", ") {
					t.Fatalf("exit %d, no saved trace:\n%s%s", code, out, errb)
				}
				if _, err := os.Stat(strings.TrimSuffix(m[1], ".trace") + ".html"); err != nil {
					t.Errorf("no HTML report: %v", err)
				}
				saved, err := os.ReadFile(m[1])
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(saved), "\nrecipe "+name+"\nworkload barrier clients=") {
					t.Errorf("the trace file does not name the barrier workload:\n%.300s", saved)
				}
				code, replayed, errb := runOut(t, "replay", "-view", "raw", m[1])
				_, savedTrace, _ := strings.Cut(string(saved), "\ntrace\n")
				trace, verdict, _ := strings.Cut(replayed, "verdict:\n")
				if code != 1 || trace != savedTrace {
					t.Fatalf("replay exit %d, or its trace differs from the saved one:\n%s%s", code, replayed, errb)
				}
				// The run's report shows the verdict's violations, one a line,
				// before the trace: the replay shows the same ones.
				for _, v := range strings.Split(strings.TrimSuffix(verdict, "\n"), "\n") {
					if !strings.Contains(out, v+"\n") {
						t.Errorf("replay's verdict line %q is not the run's:\n%s", v, out)
					}
				}
				if !strings.Contains(verdict, "  "+string(ex.Violation)+": ") && strategy != "exhaustive" {
					t.Logf("found %s rather than %s", strings.TrimSpace(verdict), ex.Violation)
				}
			})
		}
	}
}

// The good barriers pass with every default fault, random walk and PCT,
// and exhaust small bounds.
func TestRunBarrier_GoodPass(t *testing.T) {
	for _, args := range [][]string{
		{"-recipe", "barrier", "-schedules", "300"},
		{"-recipe", "barrier", "-schedules", "300", "-strategy", "pct", "-clients", "4", "-acquisitions", "1"},
		{"-recipe", "barrier/single", "-schedules", "300", "-clients", "4"},
		{"-recipe", "barrier", "-strategy", "exhaustive", "-deviations", "1"},
		{"-recipe", "barrier/single", "-strategy", "exhaustive", "-deviations", "1"},
	} {
		code, out, errb := runOut(t, append([]string{"run", "-out", t.TempDir()}, args...)...)
		if code != 0 || strings.Contains(out, "exhaustive") && !strings.Contains(out, "exhausted within the bounds") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errb)
		}
	}
	_, out, _ := runOut(t, "run", "-recipe", "barrier/single", "-schedules", "1", "-clients", "4")
	if !strings.HasPrefix(out, "zksim run: barrier/single, 4 clients, faults default, random walk, seeds 1..1\nchecked: single-barrier waits,") {
		t.Errorf("header:\n%s", out)
	}
	_, out, _ = runOut(t, "run", "-recipe", "barrier", "-schedules", "1")
	if !strings.HasPrefix(out, "zksim run: barrier, 3 clients x 2 rounds, faults default,") {
		t.Errorf("header:\n%s", out)
	}
}

// Flags that mean nothing to a barrier are refused by name, with a usage
// error, not ignored.
func TestRunBarrier_RefusesLockFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-recipe", "barrier", "-read", "10"}, "-read: not with the barrier recipe barrier"},
		{[]string{"-recipe", "barrier", "-deadline-ticks", "3", "-unfenced"}, "-deadline-ticks, -unfenced: not with the barrier recipe barrier"},
		{[]string{"-recipe", "barrier", "-servers", "127.0.0.1:1", "-read", "5"}, "-read: not with the barrier recipe barrier"},
		{[]string{"-recipe", "barrier/zoo/leaveearly", "-sequence-start", "5", "-overflow", "wrap"}, "-sequence-start, -overflow: not with"},
		{[]string{"-recipe", "barrier/single", "-acquisitions", "2"}, "-acquisitions: not with the barrier recipe barrier/single"},
		{[]string{"-recipe", "barrier/zoo/waitonerror", "-strategy", "exhaustive", "-symmetry"}, "-symmetry: not with"},
	} {
		code, _, errb := runOut(t, append([]string{"run"}, tc.args...)...)
		if code != 2 || !strings.Contains(errb, tc.want) {
			t.Errorf("%v: exit %d, %q, want %q", tc.args, code, errb, tc.want)
		}
	}
}

// list names the barrier recipes with their one-line docs.
func TestList_Barriers(t *testing.T) {
	_, out, _ := runOut(t, "list")
	_, barriers, ok := strings.Cut(out, "\nbarrier recipes (-recipe; -acquisitions counts each client's rounds):\n")
	if !ok {
		t.Fatalf("no barrier section:\n%s", out)
	}
	want := []string{"barrier", "barrier/single"}
	for _, ex := range zoo.Barriers() {
		want = append(want, ex.Name)
	}
	for _, name := range want {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(name) + ` +\S`).MatchString(barriers) {
			t.Errorf("list lacks %s with a doc:\n%s", name, barriers)
		}
	}
}

// -json and -summary describe a barrier run: its kind, and its rounds as
// the acquisitions; the shards' summaries merge.
func TestRunBarrier_JSONAndShards(t *testing.T) {
	dir := t.TempDir()
	_, out, _ := runOut(t, "run", "-recipe", "barrier/zoo/leaveearly", "-schedules", "40", "-json", "-out", dir)
	objs := jsonLines(t, out)
	last := objs[len(objs)-1]
	w, _ := last["workload"].(map[string]any)
	if last["type"] != "summary" || last["recipe"] != "barrier/zoo/leaveearly" || w["kind"] != "barrier" || w["acquisitions"] != 2.0 {
		t.Errorf("summary: %v", last)
	}
	var sums []string
	for i := range 2 {
		s := filepath.Join(dir, "s"+string(rune('0'+i))+".json")
		runOut(t, "run", "-recipe", "barrier/zoo/leaveearly", "-schedules", "40", "-shard", string(rune('0'+i))+"/2", "-summary", s, "-out", dir)
		sums = append(sums, s)
	}
	code, merged, errb := runOut(t, append([]string{"merge"}, sums...)...)
	if code != 1 || !strings.Contains(merged, "barrier/zoo/leaveearly, 3 clients x 2 rounds") || !strings.Contains(merged, "barrier-leave") {
		t.Errorf("merge: exit %d\n%s%s", code, merged, errb)
	}
}
