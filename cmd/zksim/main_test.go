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
		{"testdata/demo.golden", nil},
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
		{[]string{"-clients", "1"}, 2, "-clients must be between 2 and 50"},
		{[]string{"-clients", "x"}, 2, "invalid value"},
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
	if testing.Short() {
		t.Skip("builds the zksim binary")
	}
	args := []string{"run", "-recipe", "rwlock", "-seed", "42", "-schedules", "2", "-trace"}
	var in bytes.Buffer
	if code := run(args, &in, io.Discard); code != 0 {
		t.Fatalf("in-process run: exit %d", code)
	}
	bin := filepath.Join(t.TempDir(), "zksim")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("zksim binary: %v", err)
	}
	if !bytes.Equal(out, in.Bytes()) {
		t.Fatalf("the binary's trace differs from the test's:\n%s\n---\n%s", out, in.String())
	}
	if !bytes.Contains(out, []byte("send c1")) {
		t.Fatalf("no trace printed:\n%s", out)
	}
}

func TestRun_RunCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"run", "-schedules", "20"}, 0, "lock: 20 schedules, 0 with violations"},
		{[]string{"run", "-recipe", "zoo/dirwatch", "-schedules", "2"}, 1, "herd"},
		{[]string{"run", "-recipe", "nope"}, 2, ""},
		{[]string{"run", "-schedules", "0"}, 2, ""},
	} {
		var out bytes.Buffer
		if code := run(tc.args, &out, io.Discard); code != tc.code || !strings.Contains(out.String(), tc.out) {
			t.Errorf("%v: exit %d, output %q", tc.args, code, out.String())
		}
	}
}
