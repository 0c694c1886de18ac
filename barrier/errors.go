package barrier

import (
	"errors"
	"fmt"
	"strings"
)

// Errors of the barrier package.
var (
	// ErrConfig: a bad barrier path.
	ErrConfig = errors.New("barrier: invalid configuration")
)

// checkPath refuses anything but an absolute node path other than "/".
func checkPath(p string) error {
	if !strings.HasPrefix(p, "/") || p == "/" || strings.HasSuffix(p, "/") || strings.Contains(p, "//") {
		return fmt.Errorf("%w: path %q must be an absolute node path other than /", ErrConfig, p)
	}
	return nil
}
