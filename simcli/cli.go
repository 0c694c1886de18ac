package simcli

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/recipe"
)

// Exit codes of every command.
const (
	ExitOK          = 0   // no violation
	ExitViolation   = 1   // a violation (run, merge, replay), or shards missing (merge)
	ExitUsage       = 2   // bad flags or arguments, an output that cannot be written: nothing ran
	ExitCouldNotRun = 3   // the command could not do its job: servers unreachable, an output lost after the run
	ExitInterrupted = 130 // run stopped by Ctrl-C (SIGINT) or SIGTERM before any violation
)

// CLI is a command line over a set of lock recipes and other Subjects
// (barriers, a user's own workloads): run (the default), replay, list and
// merge, and any Commands besides.
type CLI struct {
	// Name is the command's name in usage and messages; default: the last
	// element of the main package's import path.
	Name string
	// Recipes are what run -recipe and replay accept, by Recipe.Name.
	Recipes []recipe.Lock
	// Subjects are the other workloads run -recipe and replay accept, by
	// Name (a barrier recipe's harness.Barrier, a user's own
	// harness.Subject): each runs as given, resized by -clients and
	// -acquisitions (what its Shape's Each counts); the lock flags are
	// refused. A Spec that starts with a bare word names its kind
	// ("barrier"), for list and -json; a Subject with a Checks(everyStep
	// bool) string method names its checks in run's header.
	Subjects []harness.Subject
	// Docs describe recipes in list, one line each, by name (optional).
	Docs map[string]string
	// Aliases are other names run -recipe accepts, each for a recipe's
	// Name (e.g. "semaphore" for "semaphore/2"); runs and trace files
	// name the recipe itself.
	Aliases map[string]string
	// ReplayCommand is the command a failure's replay hint names before
	// "replay FILE"; default: the program as it was invoked, so that the
	// hint works where it is printed: an installed or built binary by
	// the name it was run with (zksim, ./bin/mycheck), one that go run
	// built as "go run ./DIR" (DIR the main package's directory from the
	// working directory) or "go run PKG@VERSION".
	ReplayCommand string
	// Commands are more subcommands, listed after the built-in ones.
	Commands []Command

	invoked *invocation // tests: how the program was started; nil: os.Args and the build information
}

// Command is a subcommand a CLI adds to its own.
type Command struct {
	Name     string
	Synopsis string // its usage line after the command's name, e.g. "serve [-addr HOST:PORT]"
	Summary  string // one line for the command overview
	Run      func(args []string, stdout, stderr io.Writer) int
}

// Main runs the command line over recipes with os.Args and exits with
// its exit code: a whole program that checks its own recipes is
//
//	func main() { simcli.Main(myRecipe) }
func Main(recipes ...recipe.Lock) { (&CLI{Recipes: recipes}).Main() }

// Main runs c with os.Args and exits with its exit code.
func (c *CLI) Main() { os.Exit(c.Run(os.Args[1:], os.Stdout, os.Stderr)) }

// Run runs the command args name (run when args start with a flag or are
// empty) and returns its exit code.
func (c *CLI) Run(args []string, stdout, stderr io.Writer) int {
	name := "run"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		name, args = args[0], args[1:]
	}
	for _, cmd := range c.commands() {
		if cmd.Name == name {
			return cmd.Run(args, stdout, stderr)
		}
	}
	if name == "help" {
		fmt.Fprint(stdout, c.usage())
		return ExitOK
	}
	fmt.Fprintf(stderr, "%s: unknown command %q\n%s", c.name(), name, c.usage())
	return ExitUsage
}

// commands are the built-in commands, then c.Commands.
func (c *CLI) commands() []Command {
	builtin := []Command{
		{"run", "[run] [-recipe NAME] [-seed S] [-schedules N | -time D] [-parallel N] [-shard I/N] [-faults SPEC] ...",
			"explore schedules of a lock recipe with every fault and check them (default)", c.runRun},
		{"replay", "replay [-view lines|columns|raw] FILE", "replay a saved trace byte for byte and show it", c.runReplay},
		{"explain", "explain", "explain the words and abbreviations of a trace", c.runExplain},
		{"list", "list", "name every recipe, fault and strategy", c.runList},
		{"merge", "merge [-json] [-junit FILE] SUMMARY...", "merge the -summary files of a sharded run into one verdict", c.runMerge},
		{"version", "version [-json]", "print the module version, source revision and Go version", c.runVersion},
	}
	return append(builtin, c.Commands...)
}

func (c *CLI) usage() string {
	var b strings.Builder
	for i, cmd := range c.commands() {
		lead := "usage:"
		if i > 0 {
			lead = "      "
		}
		fmt.Fprintf(&b, "%s %s %s\n", lead, c.name(), cmd.Synopsis)
	}
	b.WriteString("\nCommands:\n")
	for _, cmd := range c.commands() {
		fmt.Fprintf(&b, "  %-7s %s\n", cmd.Name, cmd.Summary)
	}
	fmt.Fprintf(&b, "\n'%s COMMAND -h' shows a command's flags.\n", c.name())
	fmt.Fprintf(&b, "Exit codes: %d ok, %d violation, %d usage error, %d could not run (or write its reports),\n"+
		"%d run interrupted (Ctrl-C, SIGTERM) before any violation.\n",
		ExitOK, ExitViolation, ExitUsage, ExitCouldNotRun, ExitInterrupted)
	return b.String()
}

// name is c.Name or the main package's last path element.
func (c *CLI) name() string {
	if c.Name != "" {
		return c.Name
	}
	return programName()
}

// programName is the main package's last path element (a test binary's
// without ".test"), or os.Args[0]'s base name without build information.
func programName() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Path != "" {
		return strings.TrimSuffix(bi.Path[strings.LastIndexByte(bi.Path, '/')+1:], ".test")
	}
	return filepath.Base(os.Args[0])
}

// replayCommand is how the replay hint starts: c.ReplayCommand, or the
// program as it was invoked (invocation.command).
func (c *CLI) replayCommand() string {
	if c.ReplayCommand != "" {
		return c.ReplayCommand
	}
	if c.invoked != nil {
		return c.invoked.command()
	}
	return currentInvocation().command()
}

// recipe returns the recipe called name, or that name aliases.
func (c *CLI) recipe(name string) (recipe.Lock, bool) {
	name = c.resolve(name)
	for _, r := range c.Recipes {
		if r.Name == name {
			return r, true
		}
	}
	return recipe.Lock{}, false
}

// resolve returns the recipe name that name aliases, or name.
func (c *CLI) resolve(name string) string {
	if to, ok := c.Aliases[name]; ok {
		return to
	}
	return name
}

// subject returns the Subject of the recipe called name, or that name
// aliases: a lock recipe's workload, or one of Subjects.
func (c *CLI) subject(name string) (harness.Subject, bool) {
	if r, ok := c.recipe(name); ok {
		return harness.Lock(r, harness.Workload{}), true
	}
	return c.other(name)
}

// other returns the one of Subjects called name, or that name aliases.
func (c *CLI) other(name string) (harness.Subject, bool) {
	name = c.resolve(name)
	for _, w := range c.Subjects {
		if w.Name() == name {
			return w, true
		}
	}
	return nil, false
}

// kindOf is what a Subject's Spec says it is: its first field if that is
// a bare word ("barrier"), else "".
func kindOf(w harness.Subject) string {
	if f := strings.Fields(w.Spec()); len(f) > 0 && !strings.Contains(f[0], "=") {
		return f[0]
	}
	return ""
}

// specField is the value of a workload line's (a Spec's) field key, ""
// if it has none: its dir is the directory a column view leaves out of
// its paths, its single=true the single barrier's.
func specField(spec, key string) string {
	for _, f := range strings.Fields(spec) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return v
		}
	}
	return ""
}

func (c *CLI) recipeNames() string {
	var names []string
	for _, r := range c.Recipes {
		names = append(names, r.Name)
	}
	for _, w := range c.Subjects {
		names = append(names, w.Name())
	}
	for _, a := range slices.Sorted(maps.Keys(c.Aliases)) {
		names = append(names, a+" (for "+c.Aliases[a]+")")
	}
	return strings.Join(names, ", ")
}
