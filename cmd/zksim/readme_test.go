package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/fakezk/netserver"
	"github.com/zksim/zksim/internal/longtest"
	"github.com/zksim/zksim/zktest"
)

// TestReadme_Tour runs the README's two-minute tour as written (with the
// output directory in a temporary place) and checks what the README says
// the reader will see.
func TestReadme_Tour(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if code := run([]string{"run", "-recipe", "zoo/noguidretry", "-faults", "lose-reply=2", "-schedules", "200", "-out", dir}, &out, io.Discard); code != 1 {
		t.Fatalf("run zoo/noguidretry: exit %d\n%s", code, out.String())
	}
	trace, _ := savedFiles(t, out.String())
	if filepath.Dir(trace) != dir || !strings.HasPrefix(filepath.Base(trace), "zoo_noguidretry-deadlock-seed") {
		t.Errorf("trace file %s, want zoo_noguidretry-deadlock-seed... in %s", trace, dir)
	}
	for _, want := range []string{"deadlock", "2 clients x 1 acquisitions", "lose-reply c2 create /locks/l/lock-",
		"report:   " + strings.TrimSuffix(trace, ".trace") + ".html", "replay:   go run ./cmd/zksim replay " + trace} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("run output lacks %q:\n%s", want, out.String())
		}
	}
	var replayed bytes.Buffer
	if code := run([]string{"replay", trace}, &replayed, io.Discard); code != 1 || !strings.Contains(replayed.String(), "verdict:\n  deadlock") {
		t.Errorf("replay: exit %d\n%s", code, replayed.String())
	}
	out.Reset()
	if code := run([]string{"run", "-recipe", "zoo/assumeonwake", "-schedules", "200", "-out", dir}, &out, io.Discard); code != 1 {
		t.Fatalf("run zoo/assumeonwake: exit %d", code)
	}
	_, html := savedFiles(t, out.String())
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "<h1>mutual-exclusion</h1>") || !strings.HasPrefix(filepath.Base(html), "zoo_assumeonwake-mutual-exclusion-seed") {
		t.Errorf("no report at %s (%v):\n%s", html, err, out.String())
	}
	for _, args := range [][]string{{"list"}, {"demo"}, {"herd", "-waiters", "10,100"}} {
		if code := run(args, io.Discard, io.Discard); code != 0 {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}

// TestReadme_ServeFaults applies every fault spec the README's serve
// section posts to the control interface, in order, to a server whose
// first session is the one the README names: each must be accepted.
func TestReadme_ServeFaults(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var specs []string
	for _, line := range strings.Split(string(readme), "\n") {
		if rest, ok := strings.CutPrefix(line, `curl -H "$H" -d '`); ok {
			spec, _, _ := strings.Cut(rest, "'")
			specs = append(specs, spec)
		}
	}
	if len(specs) < 5 {
		t.Fatalf("found %d fault specs in the README, want the serve section's", len(specs))
	}
	srv, addr := zktest.ServeFake(t, netserver.Config{Machine: fakezk.Config{TickMillis: 500}})
	conn := dial(t, addr)
	defer conn.Close()
	for _, spec := range specs {
		if err := srv.ApplyFaults(spec); err != nil {
			t.Errorf("README spec %q: %v", spec, err)
		}
	}
}

// TestReadme_RunCommands runs every simulated `zksim run` command of the
// README, briefly (a few schedules, a short time limit, files in a
// temporary directory): each must be accepted (exit 0 or 1, not 2).
func TestReadme_RunCommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	brief := map[string]string{"-schedules": "3", "-time": "10ms", "-out": dir, "-summary": filepath.Join(dir, "summary.json"),
		"-junit": filepath.Join(dir, "junit.xml")}
	n := 0
	for _, line := range strings.Split(string(readme), "\n") {
		_, cmd, ok := strings.Cut(line, "go run ./cmd/zksim run ")
		if !ok || strings.Contains(cmd, "-servers") {
			continue
		}
		cmd, _, _ = strings.Cut(cmd, "#")
		cmd, _, _ = strings.Cut(cmd, ">") // stdout goes to the test's discard
		args := strings.Fields(strings.ReplaceAll(cmd, "${{ matrix.shard }}", "1"))
		for i := 1; i < len(args); i++ {
			if v, ok := brief[args[i-1]]; ok {
				args[i] = v
			}
		}
		if !slices.Contains(args, "-out") { // failures go to the test's directory
			args = append(args, "-out", dir)
		}
		if !slices.Contains(args, "-schedules") && !slices.Contains(args, "-time") {
			// A search with no budget (the exhaustive ones) runs until it
			// is done: a minute and more under -race. Their verdicts
			// are TestReadme_ExhaustiveCommandsAsCommented's, in the
			// long-test mode.
			args = append(args, "-time", brief["-time"])
		}
		n++
		if code := run(append([]string{"run"}, args...), io.Discard, io.Discard); code != 0 && code != 1 {
			t.Errorf("README's zksim run %s: exit %d", cmd, code)
		}
	}
	if n < 5 {
		t.Errorf("found %d zksim run commands in the README, want at least 5", n)
	}
}

// TestReadme_ExhaustiveCommandsAsCommented runs the README's exhaustive
// commands whose comment promises an exit code, unabridged (the
// exhaustion of the default bounds takes minutes under -race: a long
// test), and checks that code and the counterexample's deviations where
// the comment gives them.
func TestReadme_ExhaustiveCommandsAsCommented(t *testing.T) {
	longtest.Skip(t)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	exitComment := regexp.MustCompile(`exit (\d)$`)
	deviationsComment := regexp.MustCompile(`with (\d+) deviations`)
	n := 0
	for _, line := range strings.Split(string(readme), "\n") {
		_, cmd, ok := strings.Cut(line, "go run ./cmd/zksim run ")
		cmd, comment, _ := strings.Cut(cmd, "#")
		m := exitComment.FindStringSubmatch(strings.TrimSpace(comment))
		if !ok || m == nil || !strings.Contains(cmd, "-strategy exhaustive") {
			continue
		}
		n++
		args := append([]string{"run"}, strings.Fields(cmd)...)
		code, out, errb := runOut(t, append(args, "-out", t.TempDir())...)
		if want, _ := strconv.Atoi(m[1]); code != want {
			t.Errorf("README's zksim run %s: exit %d, the README says %d\n%s%s", cmd, code, want, out, errb)
		}
		if d := deviationsComment.FindStringSubmatch(comment); d != nil && !strings.Contains(out, "counterexample with "+d[1]+" deviations") {
			t.Errorf("README's zksim run %s: the README says a counterexample with %s deviations:\n%s", cmd, d[1], out)
		}
	}
	if n < 2 {
		t.Errorf("found %d exhaustive commands with an exit code in the README, want at least 2", n)
	}
}

// TestReadme_WorkflowExample: the workflow the README's CI section shows
// is the example file's, line for line, so the two cannot drift apart.
func TestReadme_WorkflowExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	workflow, err := os.ReadFile("../../.github/workflows/zksim.yml")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "## Using zksim in CI")
	_, block, ok := strings.Cut(section, "```yaml\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok || !strings.Contains(block, "zksim merge -junit") {
		t.Fatalf("no workflow in the README's CI section")
	}
	if !strings.Contains(string(workflow), block) {
		t.Errorf("the README's workflow is not part of .github/workflows/zksim.yml:\n%s", block)
	}
}
