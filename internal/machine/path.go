package machine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zksim/zksim/zkapi"
)

// validatePath applies ZooKeeper's PathUtils.validatePath: absolute, no
// empty, "." or ".." segment, no trailing slash (except "/"), no NUL and
// none of the character ranges the server rejects. The error wraps
// zkapi.ErrBadArguments, which is what the server answers.
func validatePath(path string) error {
	if plainPath(path) {
		return nil // the common case, in one pass and without a rune decode
	}
	return checkPath(path)
}

// plainPath reports whether path is valid and printable ASCII: "/" and
// names of the bytes 0x20..0x7e but "/", none empty, "." or "..". Every
// path it accepts checkPath accepts; the others go to checkPath.
func plainPath(path string) bool {
	if len(path) < 2 || path[0] != '/' {
		return false
	}
	seg := 1 // where the current name starts
	for i := 1; i < len(path); i++ {
		if c := path[i]; !nameByte[c] {
			if c != '/' || !plainName(path[seg:i]) {
				return false
			}
			seg = i + 1
		}
	}
	return plainName(path[seg:])
}

// plainName reports whether a name of nameBytes is one plainPath accepts.
func plainName(name string) bool { return name != "" && name != "." && name != ".." }

// nameByte marks the bytes plainPath accepts in a name: a table, as
// every write's path goes through it.
var nameByte = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c <= 0x7e && c != '/'
	}
	return t
}()

// checkPath is validatePath's whole check, and its error.
func checkPath(path string) error {
	if path == "" {
		return fmt.Errorf("%w: path must not be empty", zkapi.ErrBadArguments)
	}
	if path[0] != '/' {
		return fmt.Errorf("%w: path must start with /: %q", zkapi.ErrBadArguments, path)
	}
	if path == "/" {
		return nil
	}
	if strings.HasSuffix(path, "/") {
		return fmt.Errorf("%w: path must not end with /: %q", zkapi.ErrBadArguments, path)
	}
	for rest, i := path[1:], 1; ; i++ {
		seg, tail, more := strings.Cut(rest, "/")
		switch seg {
		case "":
			return fmt.Errorf("%w: empty node name in %q (segment %d)", zkapi.ErrBadArguments, path, i)
		case ".", "..":
			return fmt.Errorf("%w: relative segment %q in %q", zkapi.ErrBadArguments, seg, path)
		}
		if !more {
			break
		}
		rest = tail
	}
	for _, r := range path {
		if invalidRune(r) {
			return fmt.Errorf("%w: invalid character %U in %q", zkapi.ErrBadArguments, r, path)
		}
	}
	return nil
}

// invalidRune mirrors PathUtils.validatePath, which tests Java chars (UTF-16
// code units): a character above U+FFFF is two surrogates, both inside the
// refused range U+D800..U+F8FF.
func invalidRune(r rune) bool {
	return r == 0 || r > 0xffff ||
		(r > 0 && r <= 0x1f) ||
		(r >= 0x7f && r <= 0x9f) ||
		(r >= 0xd800 && r <= 0xf8ff) ||
		(r >= 0xfff0 && r <= 0xffff)
}

// parentOf returns the parent path and the last segment of a valid path.
func parentOf(path string) (parent, name string) {
	i := strings.LastIndexByte(path, '/')
	if i == 0 {
		return "/", path[1:]
	}
	return path[:i], path[i+1:]
}

// sequenceSuffix formats a sequence number as ZooKeeper does, with Java's
// %010d: zero-padded to ten characters after the sign ("-000000003").
func sequenceSuffix(n int32) string {
	if n >= 0 {
		d := strconv.Itoa(int(n))
		return strings.Repeat("0", max(0, 10-len(d))) + d
	}
	return fmt.Sprintf("%010d", n)
}

// sequentialPath is prefix followed by n's sequence suffix, built in one
// allocation: every sequential create names its node this way.
func sequentialPath(prefix string, n int32) string {
	if n < 0 {
		return prefix + sequenceSuffix(n)
	}
	var digits [10]byte // zero-padded, filled from the right
	for i := len(digits) - 1; i >= 0; i-- {
		digits[i] = byte('0' + n%10)
		n /= 10
	}
	var b strings.Builder
	b.Grow(len(prefix) + len(digits))
	b.WriteString(prefix)
	b.Write(digits[:])
	return b.String()
}
