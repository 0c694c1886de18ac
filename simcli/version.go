package simcli

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// zksimModule is the module simcli belongs to: a program built on simcli
// names the zksim it was built with.
const zksimModule = "github.com/zksim/zksim"

// versionInfo is what version prints, from the binary's build
// information: a tagged module version when installed with
// 'go install ...@vX.Y.Z', "(devel)" when built in a checkout, which then
// has its revision and whether the tree was modified.
type versionInfo struct {
	Name     string `json:"name"`
	Path     string `json:"path"`    // the main package
	Module   string `json:"module"`  // its module
	Version  string `json:"version"` // the module's version: vX.Y.Z, a pseudo-version or (devel)
	Revision string `json:"revision,omitempty"`
	Time     string `json:"revision_time,omitempty"`
	Modified *bool  `json:"modified,omitempty"`      // uncommitted changes in the checkout built
	Zksim    string `json:"zksim_version,omitempty"` // the zksim module's version, in a program that depends on it
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

const versionUsage = `usage: %[1]s version [-json]

Print the program's module version, the version control revision it was
built from (and whether the checkout was modified), and the Go version.

`

func (c *CLI) runVersion(args []string, stdout, stderr io.Writer) int {
	fs := NewFlags("version", fmt.Sprintf(versionUsage, c.name()), stderr)
	asJSON := fs.Bool("json", false, "print one JSON object")
	if code := c.parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return c.usageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	v := versionOf(c.name(), bi)
	if *asJSON {
		b, _ := json.Marshal(v) // strings and a bool: cannot fail
		fmt.Fprintf(stdout, "%s\n", b)
		return ExitOK
	}
	fmt.Fprintf(stdout, "%s %s\n", v.Name, v.Version)
	line := func(k, val string) {
		if val != "" {
			fmt.Fprintf(stdout, "  %-9s %s\n", k, val)
		}
	}
	line("path", v.Path)
	line("module", v.Module)
	rev := v.Revision
	if v.Modified != nil && *v.Modified {
		rev += " (modified)"
	}
	line("revision", strings.TrimSpace(rev+" "+v.Time))
	line("zksim", v.Zksim)
	line("go", v.Go+" "+v.Platform)
	return ExitOK
}

// versionOf reads build information bi (nil: none) of program name.
// Go stamps the revision only when building in a git checkout whose .git
// is a directory (not in a git worktree) and -buildvcs is not false.
func versionOf(name string, bi *debug.BuildInfo) versionInfo {
	v := versionInfo{Name: name, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, Version: "unknown"}
	if bi == nil {
		return v
	}
	v.Path, v.Module, v.Version, v.Go = bi.Path, bi.Main.Path, bi.Main.Version, bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			modified := s.Value == "true"
			v.Modified = &modified
		}
	}
	for _, d := range bi.Deps {
		if d.Path == zksimModule {
			v.Zksim = d.Version
			if d.Replace != nil {
				v.Zksim += " => " + d.Replace.Path + " " + d.Replace.Version
			}
		}
	}
	return v
}
