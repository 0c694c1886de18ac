package simcli

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// TestInvocation_Command: the replay hint names the program as it was
// invoked: an installed or built binary by the name it was run with, a
// binary go run built by the go run that builds it from the working
// directory, a go test binary by the go run of its package from the
// module's root.
func TestInvocation_Command(t *testing.T) {
	root := filepath.FromSlash("/src/zksim")
	user := filepath.FromSlash("/home/u/mycheck")
	mods := map[string]string{
		filepath.Join(root, "go.mod"): "// zksim\nmodule github.com/zksim/zksim\n\ngo 1.26\n",
		filepath.Join(user, "go.mod"): "module \"example.com/mycheck\"\n",
	}
	readFile := func(p string) ([]byte, error) {
		if s, ok := mods[p]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist
	}
	zksim := invocation{pkg: "github.com/zksim/zksim/cmd/zksim", module: "github.com/zksim/zksim", version: "(devel)", readFile: readFile}
	for _, tc := range []struct {
		name      string
		arg0, cwd string
		change    func(*invocation)
		want      string
	}{
		{"installed, on PATH", "zksim", "/tmp", nil, "zksim"},
		{"installed, by path", "/usr/local/bin/zksim", "/tmp", nil, "/usr/local/bin/zksim"},
		{"built in the checkout", "./bin/zksim", root, nil, "./bin/zksim"},
		{"go run from the module root", "/tmp/go-build123/b001/exe/zksim", root, nil, "go run ./cmd/zksim"},
		{"go run . from its directory, cached binary", "/root/.cache/go-build/fd/fd9e-d/zksim", filepath.Join(root, "cmd", "zksim"), nil, "go run ."},
		{"go run from a sibling", "/tmp/go-build1/b001/exe/zksim", filepath.Join(root, "docs"), nil, "go run ../cmd/zksim"},
		{"go run of a released version", "/tmp/go-build1/b001/exe/zksim", "/tmp", func(i *invocation) { i.version = "v1.2.0" },
			"go run github.com/zksim/zksim/cmd/zksim@v1.2.0"},
		{"go run outside the module", "/tmp/go-build1/b001/exe/zksim", "/tmp", nil, "go run ./cmd/zksim"},
		{"a test binary", "/tmp/go-build1/b001/zksim.test", filepath.Join(root, "cmd", "zksim"), func(i *invocation) { i.test = true }, "go run ./cmd/zksim"},
		{"no build information", "/tmp/go-build1/b001/exe/zksim", root, func(i *invocation) { i.module, i.pkg = "", "" }, "/tmp/go-build1/b001/exe/zksim"},
		{"a user's main", "/tmp/go-build9/b001/exe/mycheck", user, func(i *invocation) {
			i.module, i.pkg = "example.com/mycheck", "example.com/mycheck/cmd/mycheck"
		}, "go run ./cmd/mycheck"},
		{"a user's main at the module's root", "/tmp/go-build9/b001/exe/mycheck", user, func(i *invocation) {
			i.module, i.pkg = "example.com/mycheck", "example.com/mycheck"
		}, "go run ."},
	} {
		inv := zksim
		inv.arg0, inv.cwd = tc.arg0, filepath.FromSlash(tc.cwd)
		if tc.change != nil {
			tc.change(&inv)
		}
		if got := inv.command(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestCLI_ReplayCommandInjected: the CLI's hint follows its invocation,
// and ReplayCommand overrides it.
func TestCLI_ReplayCommandInjected(t *testing.T) {
	c := &CLI{invoked: &invocation{arg0: "./mycheck"}}
	if got := c.replayCommand(); got != "./mycheck" {
		t.Errorf("replayCommand %q", got)
	}
	c.ReplayCommand = "mycheck"
	if got := c.replayCommand(); got != "mycheck" {
		t.Errorf("replayCommand with ReplayCommand: %q", got)
	}
}

// TestFailureName_Unique: a failure's file name carries its recipe, class
// and seed and a hash of the counterexample: the same counterexample
// gets the same name, another seed or another trace another one.
func TestFailureName_Unique(t *testing.T) {
	ce := func(trace ...string) harness.Counterexample {
		w := harness.Lock(zoo.Mutex(), harness.Workload{Clients: 2, Acquisitions: 1})
		return harness.Counterexample{Subject: w, Decisions: []int{1, 0, 2},
			Report: &harness.Report{Result: &sim.Result{Trace: trace}}}
	}
	a := failureName("zoo/x", check.MutualExclusion, 7, ce("1 send c1", "2 recv c1"))
	if !strings.HasPrefix(a, "zoo/x-mutual-exclusion-seed7-") || len(a) != len("zoo/x-mutual-exclusion-seed7-")+8 {
		t.Errorf("name %q, want zoo/x-mutual-exclusion-seed7-HASH", a)
	}
	for _, other := range []string{
		failureName("zoo/x", check.MutualExclusion, 8, ce("1 send c1", "2 recv c1")),
		failureName("zoo/x", check.MutualExclusion, 7, ce("1 send c1", "2 recv c2")),
		failureName("zoo/x", check.Deadlock, 7, ce("1 send c1", "2 recv c1")),
	} {
		if other == a {
			t.Errorf("two failures named %q", a)
		}
	}
	if again := failureName("zoo/x", check.MutualExclusion, 7, ce("1 send c1", "2 recv c1")); again != a {
		t.Errorf("the same failure named %q and %q", a, again)
	}
}

// TestSummaryTrace_FromWhereMergeRuns: a shard's summary names its trace
// relative to the summary too, and merge resolves that against the path
// it read the summary from.
func TestSummaryTrace_FromWhereMergeRuns(t *testing.T) {
	s := summary{First: &firstFailure{Trace: filepath.Join("shard0", "failures", "x.trace")}}
	written := withTraceFromSummary(s, filepath.Join("shard0", "s.json"))
	if got := written.First.TraceFromSummary; got != "failures/x.trace" {
		t.Fatalf("trace from summary %q", got)
	}
	if s.First.TraceFromSummary != "" {
		t.Errorf("the run's own summary changed: %+v", s.First)
	}
	read := resolveTrace(written, filepath.Join("ci", "artifacts", "shard0", "s.json"))
	if want := filepath.Join("ci", "artifacts", "shard0", "failures", "x.trace"); read.First.Trace != want || read.First.TraceFromSummary != "" {
		t.Errorf("merge reads %+v, want trace %s", read.First, want)
	}
	old := summary{First: &firstFailure{Trace: "failures/x.trace"}} // written before trace_from_summary
	if got := resolveTrace(old, "elsewhere/s.json"); got.First.Trace != "failures/x.trace" {
		t.Errorf("an old summary's trace became %q", got.First.Trace)
	}
}
