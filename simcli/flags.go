package simcli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Every subcommand parses its flags the same way: errors and usage on
// stderr, 0 after -h, 2 for any misuse.

// NewFlags returns the flag set of subcommand name; its usage is usage
// followed by the flags' defaults.
func NewFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	return fs
}

// ParseFlags parses args into fs and returns -1 if the subcommand goes
// on, else its exit code: 0 after -h, 2 for a bad flag (the flag package
// has then printed the usage).
func ParseFlags(fs *flag.FlagSet, args []string) int {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return -1
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	return ExitUsage
}

// UsageError says on fs's output what was wrong with program's
// subcommand's arguments ("prog sub: what") and where its usage is, and
// returns the usage error's exit code.
func UsageError(program string, fs *flag.FlagSet, format string, a ...any) int {
	fmt.Fprintf(fs.Output(), "%s %s: %s\nusage: '%[1]s %[2]s -h' shows the flags\n", program, fs.Name(), fmt.Sprintf(format, a...))
	return ExitUsage
}

func (c *CLI) usageError(fs *flag.FlagSet, format string, a ...any) int {
	return UsageError(c.name(), fs, format, a...)
}
