package zkclient

import (
	"fmt"
	"unicode/utf8"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// CheckPath is the check a client makes before sending req (none for
// multi): what go-zookeeper v1.0.4 checks, as clientCheckPath.
//
// A plain path (isPlainPath) passes whether the create is sequential or
// not, so the common case asks nothing of req but its path; the rest is
// out of line, as every request runs through this.
func CheckPath(req proto.Request) error {
	p, ok := proto.RequestPath(req)
	if !ok || len(p) > 1 && p[0] == '/' && isPlainPath(p, false) {
		return nil // multi, setWatches, ping; or a plain path
	}
	return checkPath(p, req)
}

// checkPath is CheckPath's check of p, req's path, when it is not plain.
//
//go:noinline
func checkPath(p string, req proto.Request) error {
	c, _ := req.(proto.Create) // only a create can be sequential
	return clientCheckPath(p, proto.IsSequential(c.Mode))
}

// clientCheckPath is the check go-zookeeper v1.0.4 makes before sending any
// request but multi; zkapi's real adapter rejects the same paths, so the
// in-process Conn does too. It is looser than the server's validatePath
// (it lets U+D800-U+EFFF and U+FFFF through, and a sequential prefix may end
// in '/'), which is why the server's own order still shows through multi.
func clientCheckPath(path string, sequential bool) error {
	bad := func(why string) error { return badClientPath(path, why) }
	if len(path) > 1 && path[0] == '/' && isPlainPath(path, sequential) {
		return nil // the common case, checked without building anything
	}
	switch {
	case path == "":
		return bad("empty path")
	case path[0] != '/':
		return bad("no leading /")
	case path == "/":
		return nil
	case !sequential && path[len(path)-1] == '/':
		return bad("trailing /")
	}
	// One pass: segment boundaries and characters (ASCII fast, runes slow).
	segStart := 1
	for i := 1; i <= len(path); i++ {
		if i == len(path) || path[i] == '/' {
			switch seg := path[segStart:i]; {
			case seg == "" && i < len(path):
				return bad("empty node name")
			case seg == "." || seg == "..":
				return bad("relative segment")
			}
			segStart = i + 1
			continue
		}
		if c := path[i]; c < 0x80 {
			if c <= 0x1f || c == 0x7f {
				return bad(fmt.Sprintf("character %U", rune(c)))
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(path[i:])
		if (r >= 0x7f && r <= 0x9f) || (r >= 0xf000 && r <= 0xf8ff) || (r >= 0xfff0 && r <= 0xfffe) {
			return bad(fmt.Sprintf("character %U", r))
		}
		i += size - 1
	}
	return nil
}

func badClientPath(path, why string) error {
	return fmt.Errorf("%w: %s in %q (checked by the client)", zkapi.ErrBadArguments, why, path)
}

// isPlainPath reports whether path is made only of segments of ASCII
// letters, digits and "-_." that are not "." or "..", the shape of nearly
// every path, which needs no closer look.
func isPlainPath(path string, sequential bool) bool {
	segStart := 1
	for i := 1; i < len(path); i++ {
		c := path[i]
		if plainByte[c] {
			continue
		}
		if c != '/' || i == segStart || (i-segStart <= 2 && allDots(path[segStart:i])) {
			return false
		}
		segStart = i + 1
	}
	last := path[segStart:]
	if last == "" {
		return sequential
	}
	return !allDots(last)
}

// allDots reports whether s is dots only ("." and "..": relative names),
// or empty. A loop, not strings.Trim: every request's path goes through
// it, and Trim first builds its set of bytes.
func allDots(s string) bool {
	for i := range len(s) {
		if s[i] != '.' {
			return false
		}
	}
	return true
}

// plainByte marks the bytes of a plain path's names: ASCII letters, digits
// and "-_.". A table, as every request's path goes through it.
var plainByte = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
	}
	return t
}()

// RefuseMultiCreates refuses a multi holding a container or TTL create,
// or a create mode zkapi does not name (zkapi/gozk has no flags for it,
// and the server would answer per op: raw case "multi with create mode
// 7"), before anything is sent, as zkapi/gozk must: go-zookeeper v1.0.4 sends
// every create of a multi with the create opcode, cannot decode a
// createContainer result (recorded from 3.8.0 in the conformance
// scenario multi.txt) and has no TTL create for a multi. The Machine
// itself, and so the wire server, still applies such a multi as
// ZooKeeper does.
func RefuseMultiCreates(req proto.Request) error {
	m, ok := req.(proto.Multi)
	if !ok {
		return nil
	}
	for i, op := range m.Ops {
		c, ok := op.(zkapi.CreateOp)
		switch {
		case !ok:
		case !proto.ValidMode(c.Mode):
			return proto.Wrap("multi", c.Path, fmt.Errorf("op %d: %w: invalid create mode %v", i, zkapi.ErrBadArguments, c.Mode))
		case c.Mode == zkapi.Container:
			return proto.Wrap("multi", c.Path, fmt.Errorf("op %d: %w: container create inside multi is not supported by go-zookeeper", i, zkapi.ErrBadArguments))
		case proto.IsTTL(c.Mode) || c.TTLMillis != 0:
			return proto.Wrap("multi", c.Path, fmt.Errorf("op %d: %w: TTL create inside multi is not supported by go-zookeeper", i, zkapi.ErrBadArguments))
		}
	}
	return nil
}
