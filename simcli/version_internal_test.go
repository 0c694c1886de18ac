package simcli

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionOf_Checkout reads what go build stamps in a modified
// checkout, and in a program that depends on zksim.
func TestVersionOf_Checkout(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Path: "example.com/mycheck", Main: debug.Module{Path: "example.com/mycheck", Version: "(devel)"},
		Deps:     []*debug.Module{{Path: "github.com/zksim/zksim", Version: "v0.3.0"}},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-11-24T00:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	v := versionOf("mycheck", bi)
	if v.Version != "(devel)" || v.Revision != "abc123" || v.Modified == nil || !*v.Modified || v.Zksim != "v0.3.0" || v.Go != "go1.26.8" {
		t.Errorf("versionOf: %+v", v)
	}
	if v := versionOf("x", nil); v.Version != "unknown" || v.Go == "" {
		t.Errorf("versionOf without build information: %+v", v)
	}
}

func TestRunVersion_Text(t *testing.T) {
	var out bytes.Buffer
	if code := (&CLI{Name: "mycheck"}).Run([]string{"version"}, &out, &out); code != 0 {
		t.Fatalf("version: exit %d\n%s", code, out.String())
	}
	if !strings.HasPrefix(out.String(), "mycheck ") || !strings.Contains(out.String(), "  go        go1.") {
		t.Errorf("version:\n%s", out.String())
	}
}
