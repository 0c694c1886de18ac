package lintcheck_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommitMsg_Hook runs scripts/commit-msg, the git hook that
// scripts/check-commits.sh also applies to git log, on planted messages.
func TestCommitMsg_Hook(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("no bash to run the hook: %v", err)
	}
	hook := filepath.Join(moduleRoot(t), "scripts", "commit-msg")
	tests := []struct {
		name, msg string
		verbatim  bool
		want      string // "" if accepted, else part of the reason
	}{
		{"subject and body", "pkg: a subject\n\nThe body.\n", false, ""},
		{"subject only", "pkg: a subject\n", false, ""},
		{"72 characters", strings.Repeat("x", 72) + "\n", false, ""},
		{"73 characters", strings.Repeat("x", 73) + "\n", false, "73 characters"},
		{"72 non-ASCII characters", strings.Repeat("é", 72) + "\n", false, ""},
		{"73 non-ASCII characters", strings.Repeat("é", 73) + "\n", false, "73 characters"},
		{"no blank line", "pkg: a subject\nthe body at once\n", false, "second line"},
		{"comments dropped", "# comment\n\npkg: a subject\n# comment\n\nbody\n", false, ""},
		{"scissors", "pkg: s\n\nb\n# ------------------------ >8 ------------------------\n" + strings.Repeat("d", 99) + "\n", false, ""},
		{"verbatim keeps #", "#1 a subject\n" + "second\n", true, "second line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "MSG")
			if err := os.WriteFile(file, []byte(tc.msg), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{hook, file}
			if tc.verbatim {
				args = []string{hook, "--verbatim", file}
			}
			out, err := exec.Command(bash, args...).CombinedOutput()
			var exit *exec.ExitError
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused (%v): %s", err, out)
			case tc.want != "" && !(errors.As(err, &exit) && exit.ExitCode() == 1):
				t.Fatalf("want exit 1 saying %q, got %v: %s", tc.want, err, out)
			case !strings.Contains(string(out), tc.want):
				t.Fatalf("reason %q does not say %q", out, tc.want)
			}
		})
	}
}
