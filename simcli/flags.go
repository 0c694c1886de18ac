package simcli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Every subcommand parses its flags the same way: errors on stderr, the
// whole usage only after -h (exit 0), one line naming the flag and a
// pointer to -h for any misuse (exit 2): a page of flags scrolls the
// one line that says what was wrong out of a CI log.

// NewFlags returns the flag set of subcommand name; its usage is usage
// followed by the flags' defaults.
func NewFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	return fs
}

// ParseFlags parses args into fs and returns -1 if the subcommand goes
// on, else its exit code: 0 after -h (the usage printed), 2 for a bad
// flag (the flag package's line naming it, and where the usage is).
func ParseFlags(fs *flag.FlagSet, args []string) int { return parseFlags(programName(), fs, args) }

func parseFlags(program string, fs *flag.FlagSet, args []string) int {
	usage := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = usage
	switch {
	case err == nil:
		return -1
	case errors.Is(err, flag.ErrHelp):
		usage()
		return 0
	}
	fmt.Fprintf(fs.Output(), "usage: '%s %s -h' shows the flags\n", program, fs.Name())
	return ExitUsage
}

// UsageError says on fs's output what was wrong with program's
// subcommand's arguments ("prog sub: what") and where its usage is, and
// returns the usage error's exit code.
func UsageError(program string, fs *flag.FlagSet, format string, a ...any) int {
	fmt.Fprintf(fs.Output(), "%s %s: %s\nusage: '%[1]s %[2]s -h' shows the flags\n", program, fs.Name(), fmt.Sprintf(format, a...))
	return ExitUsage
}

func (c *CLI) parseFlags(fs *flag.FlagSet, args []string) int { return parseFlags(c.name(), fs, args) }

func (c *CLI) usageError(fs *flag.FlagSet, format string, a ...any) int {
	return UsageError(c.name(), fs, format, a...)
}
