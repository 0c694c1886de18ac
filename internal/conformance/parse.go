package conformance

import (
	"fmt"
	"strconv"
	"strings"
)

// tokenize splits a script line on spaces, keeping Go-quoted strings whole
// (unquoted) and marking them as data.
func tokenize(line string) ([]token, error) {
	var toks []token
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '"':
			j := i + 1
			for j < len(line) && line[j] != '"' {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(line) {
				return nil, fmt.Errorf("unterminated string in %q", line)
			}
			s, err := strconv.Unquote(line[i : j+1])
			if err != nil {
				return nil, fmt.Errorf("bad string %s: %v", line[i:j+1], err)
			}
			toks = append(toks, token{s, true})
			i = j + 1
		default:
			j := i
			for j < len(line) && line[j] != ' ' && line[j] != '\t' {
				j++
			}
			toks = append(toks, token{line[i:j], false})
			i = j
		}
	}
	return toks, nil
}

type token struct {
	s      string
	quoted bool
}

// args is a cursor over a command's tokens.
type args struct {
	toks []token
	err  error
}

func (a *args) next(what string) string {
	if len(a.toks) == 0 {
		a.fail("missing %s", what)
		return ""
	}
	t := a.toks[0]
	a.toks = a.toks[1:]
	return t.s
}

// optional returns the next token if present.
func (a *args) optional() (string, bool) {
	if len(a.toks) == 0 {
		return "", false
	}
	t := a.toks[0]
	a.toks = a.toks[1:]
	return t.s, true
}

func (a *args) flag(name string) bool {
	if len(a.toks) > 0 && !a.toks[0].quoted && a.toks[0].s == name {
		a.toks = a.toks[1:]
		return true
	}
	return false
}

func (a *args) version() int32 {
	s, ok := a.optional()
	if !ok {
		return -1
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		a.fail("bad version %q", s)
	}
	return int32(v)
}

func (a *args) done() error {
	if a.err == nil && len(a.toks) > 0 {
		a.fail("unexpected %q", a.toks[0].s)
	}
	return a.err
}

func (a *args) fail(format string, v ...any) {
	if a.err == nil {
		a.err = fmt.Errorf(format, v...)
	}
}

// splitMulti splits "op args | op args" into per-op token lists.
func splitMulti(toks []token) [][]token {
	if len(toks) == 0 {
		return nil
	}
	var out [][]token
	cur := []token{}
	for _, t := range toks {
		if !t.quoted && t.s == "|" {
			out = append(out, cur)
			cur = []token{}
			continue
		}
		cur = append(cur, t)
	}
	return append(out, cur)
}

func quoteData(b []byte) string {
	if len(b) > 40 {
		return fmt.Sprintf("<%d bytes>", len(b))
	}
	return strconv.Quote(string(b))
}

func joinSorted(names []string) string { return "[" + strings.Join(names, " ") + "]" }
