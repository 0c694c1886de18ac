package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestRun_Demo pins the demo's output: it must be the same in every run.
func TestRun_Demo(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"testdata/demo.golden", []string{"demo"}},
		{"testdata/demo-2.golden", []string{"demo", "-clients", "2", "-seed", "9"}},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, &out, &errb); code != 0 {
			t.Fatalf("run %v: exit %d, stderr %q", tc.args, code, errb.String())
		}
		if *update {
			os.WriteFile(tc.golden, out.Bytes(), 0o644)
		}
		want, err := os.ReadFile(tc.golden)
		if err != nil {
			t.Fatal(err)
		}
		if out.String() != string(want) {
			t.Errorf("run %v output changed:\n%s\nwant:\n%s", tc.args, out.String(), want)
		}
	}
}

func TestRun_Usage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"bogus"}, 2, `unknown command "bogus"`},
		{[]string{"demo", "-clients", "1"}, 2, "-clients must be between 2 and 50"},
		{[]string{"demo", "-clients", "x"}, 2, "invalid value"},
		{[]string{"-nope"}, 2, "flag provided but not defined"},
		{[]string{"demo", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"help"}, 0, ""},
		{[]string{"-h"}, 0, ""},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, &out, &errb)
		if code != tc.code || !strings.Contains(errb.String(), tc.msg) {
			t.Errorf("run %v: exit %d stderr %q, want %d and %q", tc.args, code, errb.String(), tc.code, tc.msg)
		}
	}
}

// The same seed gives the same trace, byte for byte, in this test binary
// and in a separately built zksim binary.
func TestRun_TraceSameInTestAndBinary(t *testing.T) {
	bin := zksimBinary(t)
	args := []string{"run", "-recipe", "rwlock", "-seed", "42", "-schedules", "2", "-trace"}
	var in bytes.Buffer
	if code := run(args, &in, io.Discard); code != 0 {
		t.Fatalf("in-process run: exit %d", code)
	}
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("zksim binary: %v", err)
	}
	// The traces come between the header and the summary, whose rate is
	// wall-clock time.
	trace := func(b []byte) []byte {
		_, after, _ := bytes.Cut(b, []byte("progress\n\n"))
		before, _, _ := bytes.Cut(after, []byte("  schedules "))
		return before
	}
	if !bytes.Equal(trace(out), trace(in.Bytes())) {
		t.Fatalf("the binary's trace differs from the test's:\n%s\n---\n%s", out, in.String())
	}
	if !bytes.Contains(trace(out), []byte("send c1")) {
		t.Fatalf("no trace printed:\n%s", out)
	}
}

func TestRun_RunCommand(t *testing.T) {
	failures := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		out  string
		err  string
	}{
		{[]string{"run", "-schedules", "20"}, 0, "violations             0 schedules", ""},
		{[]string{"-schedules", "20"}, 0, "checked: mutual exclusion (exact interval check), herd, fencing, orphans, deadlock, progress", ""},
		{[]string{"run", "-recipe", "rwlock", "-schedules", "20", "-strategy", "pct"}, 0, "reader/writer exclusion", ""},
		{[]string{"run", "-recipe", "semaphore/2", "-schedules", "20"}, 0, "checked: at most 2 leases at once (exact interval check)", ""},
		{[]string{"run", "-recipe", "semaphore", "-schedules", "20"}, 0, "zksim run: semaphore/2, 5 clients", ""},
		{[]string{"list"}, 0, "aliases (-recipe):\n  semaphore              semaphore/2\n", ""},
		{[]string{"run", "-recipe", "nope"}, 2, "", `unknown recipe "nope"`},
		{[]string{"run", "-schedules", "0"}, 2, "", "-schedules must be between"},
		{[]string{"run", "-faults", "lose-reply=x"}, 2, "", `"x" is not a count`},
		{[]string{"run", "-faults", "meteor=1"}, 2, "", `unknown fault "meteor"`},
		{[]string{"run", "-time", "soon"}, 2, "", "invalid value"},
		{[]string{"run", "-strategy", "dfs"}, 2, "", "-strategy must be random, pct or exhaustive"},
		{[]string{"run", "-schedules", "100000001"}, 2, "", "-schedules must be between 1 and 100000000"},
		{[]string{"run", "-clients", "1"}, 2, "", "-clients must be between 2 and 64"},
		{[]string{"list"}, 0, "zoo/noguidretry", ""},
		{[]string{"list"}, 0, "  election ", ""},
		{[]string{"run", "-recipe", "election", "-schedules", "20"}, 0, "herd, terms (one leader per term, growing), fencing", ""},
		{[]string{"run", "-recipe", "election", "-strategy", "exhaustive", "-clients", "2", "-acquisitions", "1", "-deviations", "0"}, 0,
			"herd, terms (one leader per term, growing), fencing", ""},
		{[]string{"run", "-recipe", "zoo/electcached", "-schedules", "20", "-out", failures}, 1, "shared-term", ""},
		{[]string{"herd", "-waiters", "10"}, 0, "10        0.90 (1)                4.50 (9)", ""},
		{[]string{"herd", "-waiters", "1"}, 2, "", "not a number from 2 to 2000"},
		{[]string{"replay"}, 2, "", "usage: zksim replay [-view lines|columns|raw] FILE"},
		{[]string{"replay", "/nonexistent.trace"}, 2, "", "no such file"},
		{[]string{"replay", "-view", "wide", "x.trace"}, 2, "", `-view must be lines, columns, raw, got "wide"`},
		{[]string{"run", "-view", "wide"}, 2, "", `-view must be lines, columns, raw, got "wide"`},
		{[]string{"explain"}, 0, "stat={c m p t v cv av eph dl nc}", ""},
		{[]string{"explain", "x"}, 2, "", `unexpected argument "x"`},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, &out, &errb)
		if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(errb.String(), tc.err) {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q", tc.args, code, out.String(), errb.String())
		}
	}
}

// A failure found by run is saved; replay -view raw prints the same trace,
// byte for byte, and the same verdict; damaged files are refused with the line.
func TestRun_FailureSavedAndReplayed(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	code := run([]string{"run", "-recipe", "zoo/splitdash", "-schedules", "5", "-out", dir}, &out, io.Discard)
	if code != 1 || !strings.Contains(out.String(), "first failure: seed") || !strings.Contains(out.String(), "mutual-exclusion") {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.trace"))
	html, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	if len(files) != 1 || len(html) != 1 {
		t.Fatalf("saved %v and %v", files, html)
	}
	if !strings.Contains(out.String(), "replay:   go run ./cmd/zksim replay "+files[0]) {
		t.Fatalf("no replay command:\n%s", out.String())
	}
	var replayed bytes.Buffer
	if code := run([]string{"replay", "-view", "raw", files[0]}, &replayed, io.Discard); code != 1 {
		t.Fatalf("replay exit %d", code)
	}
	saved, _ := os.ReadFile(files[0])
	_, savedTrace, _ := strings.Cut(string(saved), "\ntrace\n")
	if !strings.HasPrefix(replayed.String(), savedTrace) || !strings.Contains(replayed.String(), "verdict:\n  mutual-exclusion") {
		t.Fatalf("replay differs from the saved trace:\n%s", replayed.String())
	}

	lines := strings.Split(string(saved), "\n")
	broken := filepath.Join(dir, "broken.trace")
	for _, tc := range []struct{ text, want string }{
		{strings.Join(lines[:3], "\n"), "line 4"},
		{strings.Replace(string(saved), "clients=", "clients=-", 1), "line 3"},
		{"garbage\n", "line 1"},
		{strings.Replace(string(saved), "recipe zoo/splitdash", "recipe zoo/nothing", 1), `unknown recipe "zoo/nothing"`},
	} {
		os.WriteFile(broken, []byte(tc.text), 0o644)
		var errb bytes.Buffer
		if code := run([]string{"replay", broken}, io.Discard, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("replay of a damaged file: exit %d, %q, want %q", code, errb.String(), tc.want)
		}
	}
}
