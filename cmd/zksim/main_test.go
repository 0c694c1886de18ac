package main

import (
	"bytes"
	"flag"
	"os"
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
