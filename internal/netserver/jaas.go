package netserver

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// This file reads the SASL users of a JAAS login configuration as
// ZooKeeper 3.8 takes them (-Djava.security.auth.login.config=FILE): the
// entries of the "Server" section, each a login module with a control flag
// and options, of which every user_NAME="PASSWORD" is one DIGEST-MD5 user
// (SaslServerCallbackHandler). The syntax is Java's ConfigFile's: words
// and quoted strings, // and /* */ comments.

// ErrJAAS is returned by ParseJAAS for a file it cannot read users from.
var ErrJAAS = errors.New("netserver: bad JAAS configuration")

// jaasSection is the section ZooKeeper's server reads
// (zookeeper.sasl.serverconfig's default).
const jaasSection = "Server"

// ParseJAAS returns the DIGEST-MD5 users (name to password) of the Server
// section of a JAAS configuration, for Config.SASLUsers. A file without
// that section, or whose section names no user, is an error: a server
// given it could not authenticate anyone. ${property} expansion is not
// done.
func ParseJAAS(data string) (map[string]string, error) {
	toks, err := jaasTokens(data)
	if err != nil {
		return nil, err
	}
	p := &jaasParser{toks: toks}
	users := map[string]string{}
	found := false
	for !p.done() && p.err == nil {
		name := p.word("section name")
		entries := p.section()
		if name == jaasSection {
			found = true
			for _, opt := range entries {
				if user, ok := strings.CutPrefix(opt[0], "user_"); ok {
					users[user] = opt[1]
				}
			}
		}
	}
	switch {
	case p.err != nil:
		return nil, p.err
	case !found:
		return nil, fmt.Errorf("%w: no %s section", ErrJAAS, jaasSection)
	case len(users) == 0:
		return nil, fmt.Errorf("%w: the %s section has no user_NAME option", ErrJAAS, jaasSection)
	}
	return users, nil
}

// jaasTok is a word, a quoted string, or one of { } ; =.
type jaasTok struct {
	text   string
	quoted bool
	line   int
}

// jaasTokens splits a configuration into tokens, dropping comments.
func jaasTokens(s string) ([]jaasTok, error) {
	var out []jaasTok
	line := 1
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case strings.HasPrefix(s[i:], "//"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("%w: line %d: unterminated comment", ErrJAAS, line)
			}
			line += strings.Count(s[i:i+2+end], "\n")
			i += end + 4
		case c == '"':
			text, n, err := jaasQuoted(s[i:])
			if err != nil {
				return nil, fmt.Errorf("%w: line %d: %v", ErrJAAS, line, err)
			}
			out = append(out, jaasTok{text: text, quoted: true, line: line})
			line += strings.Count(s[i:i+n], "\n")
			i += n
		case strings.IndexByte("{};=", c) >= 0:
			out = append(out, jaasTok{text: string(c), line: line})
			i++
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\r\n{};=\"", rune(s[j])) && !strings.HasPrefix(s[j:], "//") && !strings.HasPrefix(s[j:], "/*") {
				j++
			}
			out = append(out, jaasTok{text: s[i:j], line: line})
			i = j
		}
	}
	return out, nil
}

// jaasQuoted reads the quoted string at the start of s, with Java's
// escapes for the characters a password may hold (\" \\ \n \t \r), and
// returns it and the bytes it took.
func jaasQuoted(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), i + 1, nil
		case '\n':
			return "", 0, errors.New("unterminated string")
		case '\\':
			i++
			if i == len(s) {
				return "", 0, errors.New("unterminated string")
			}
			b.WriteByte(unescape(s[i]))
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, errors.New("unterminated string")
}

// unescape is the character a backslash and c stand for.
func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	}
	return c
}

type jaasParser struct {
	toks []jaasTok
	err  error
}

func (p *jaasParser) done() bool { return len(p.toks) == 0 }

func (p *jaasParser) fail(format string, a ...any) {
	if p.err != nil {
		return
	}
	line := "end of file"
	if len(p.toks) > 0 {
		line = fmt.Sprintf("line %d", p.toks[0].line)
	}
	p.err = fmt.Errorf("%w: %s: %s", ErrJAAS, line, fmt.Sprintf(format, a...))
}

// next takes the next token; quoted says whether a string may stand there.
func (p *jaasParser) next(what string, quoted bool) jaasTok {
	if p.err != nil {
		return jaasTok{}
	}
	if len(p.toks) == 0 {
		p.fail("expected %s", what)
		return jaasTok{}
	}
	t := p.toks[0]
	if (t.quoted && !quoted) || (!t.quoted && len(t.text) == 1 && strings.Contains("{};=", t.text)) {
		p.fail("expected %s, got %q", what, t.text)
		return jaasTok{}
	}
	p.toks = p.toks[1:]
	return t
}

func (p *jaasParser) word(what string) string { return p.next(what, false).text }

// expect takes the punctuation sym.
func (p *jaasParser) expect(sym string) {
	if p.err != nil {
		return
	}
	if len(p.toks) == 0 || p.toks[0].quoted || p.toks[0].text != sym {
		p.fail("expected %q", sym)
		return
	}
	p.toks = p.toks[1:]
}

func (p *jaasParser) peek(sym string) bool {
	return p.err == nil && len(p.toks) > 0 && !p.toks[0].quoted && p.toks[0].text == sym
}

// section reads "{ ENTRY... };" and returns every entry's options.
func (p *jaasParser) section() [][2]string {
	p.expect("{")
	var opts [][2]string
	for p.err == nil && !p.peek("}") {
		p.word("login module class")
		flag := strings.ToLower(p.word("control flag"))
		if p.err == nil && !slices.Contains([]string{"required", "requisite", "sufficient", "optional"}, flag) {
			p.fail("control flag %q is not required, requisite, sufficient or optional", flag)
		}
		for p.err == nil && !p.peek(";") {
			key := p.word("option name")
			p.expect("=")
			opts = append(opts, [2]string{key, p.next("option value", true).text})
		}
		p.expect(";")
	}
	p.expect("}")
	p.expect(";")
	return opts
}
