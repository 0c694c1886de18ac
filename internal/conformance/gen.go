package conformance

import (
	"fmt"
	"strings"

	"pgregory.net/rapid"
)

// Generated scripts draw from a small namespace so that operations collide:
// nested paths, shared sequential prefixes, and the sequential names those
// prefixes are likely to produce.
var (
	genPaths = []string{
		"/a", "/b", "/a/x", "/a/y", "/b/x", "/a/x/z", "/b/x/z",
		"/a/s-0000000000", "/a/s-0000000001", "/a/s-0000000002",
		"/a/t-0000000001", "/a/t-0000000003", "/b/0000000000", "/b/0000000001",
	}
	genPrefixes = []string{"/a/s-", "/a/t-", "/b/", "/a/x/s-"}
	genModes    = []string{"persistent", "ephemeral", "persistent-sequential", "ephemeral-sequential", "container"}
	genData     = []string{`""`, `"a"`, `"bb"`}
)

// GenScript draws a script of n or more lines for sessions s1..s3 covering
// creates of every mode, deletes and sets with right and wrong versions,
// reads with and without watches, persistent and recursive watches,
// multi, and session close.
func GenScript(t *rapid.T, n int) string {
	lines := make([]string, 0, n)
	for len(lines) < n {
		s := rapid.SampledFrom([]string{"s1", "s2", "s3"}).Draw(t, "session")
		lines = append(lines, s+" "+genCommand(t))
	}
	return strings.Join(lines, "\n")
}

func genCommand(t *rapid.T) string {
	switch rapid.IntRange(0, 99).Draw(t, "kind") / 10 {
	case 0, 1:
		return genCreate(t)
	case 2:
		return fmt.Sprintf("delete %s %s", genPath(t), genVersion(t))
	case 3:
		return fmt.Sprintf("set %s %s %s", genPath(t), genDatum(t), genVersion(t))
	case 4:
		return "exists " + genPath(t) + genWatch(t)
	case 5:
		return "get " + genPath(t) + genWatch(t)
	case 6:
		return "children " + rapid.SampledFrom([]string{"/", "/a", "/b", "/a/x", "/b/x"}).Draw(t, "dir") + genWatch(t)
	case 7, 8:
		return genMulti(t)
	default:
		switch rapid.IntRange(0, 3).Draw(t, "close?") {
		case 0:
			return "close"
		case 1:
			path := rapid.SampledFrom([]string{"/", "/a", "/b", "/a/x"}).Draw(t, "watched")
			return "addwatch " + path + " " + rapid.SampledFrom([]string{"persistent", "recursive"}).Draw(t, "watch mode")
		}
		return "exists " + genPath(t) + " watch"
	}
}

func genCreate(t *rapid.T) string {
	mode := rapid.SampledFrom(genModes).Draw(t, "mode")
	path := genPath(t)
	if strings.HasSuffix(mode, "sequential") {
		path = rapid.SampledFrom(genPrefixes).Draw(t, "prefix")
	}
	return fmt.Sprintf("create %s %s %s", path, genDatum(t), mode)
}

func genMulti(t *rapid.T) string {
	n := rapid.IntRange(1, 3).Draw(t, "ops")
	ops := make([]string, n)
	for i := range ops {
		switch rapid.IntRange(0, 3).Draw(t, "op") {
		case 0:
			// go-zookeeper cannot send a container create in a multi.
			mode := rapid.SampledFrom(genModes[:4]).Draw(t, "mode")
			path := genPath(t)
			if strings.HasSuffix(mode, "sequential") {
				path = rapid.SampledFrom(genPrefixes).Draw(t, "prefix")
			}
			ops[i] = fmt.Sprintf("create %s %s %s", path, genDatum(t), mode)
		case 1:
			ops[i] = fmt.Sprintf("delete %s %s", genPath(t), genVersion(t))
		case 2:
			ops[i] = fmt.Sprintf("set %s %s %s", genPath(t), genDatum(t), genVersion(t))
		default:
			ops[i] = fmt.Sprintf("check %s %s", genPath(t), genVersion(t))
		}
	}
	return "multi " + strings.Join(ops, " | ")
}

func genPath(t *rapid.T) string  { return rapid.SampledFrom(genPaths).Draw(t, "path") }
func genDatum(t *rapid.T) string { return rapid.SampledFrom(genData).Draw(t, "data") }

func genVersion(t *rapid.T) string {
	return rapid.SampledFrom([]string{"-1", "-1", "0", "1", "2"}).Draw(t, "version")
}

func genWatch(t *rapid.T) string {
	if rapid.Bool().Draw(t, "watch") {
		return " watch"
	}
	return ""
}
