package barrier

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/recipe"
)

// Errors of the barrier package: the family's errors (package recipe) in
// the barrier's words, compared with errors.Is against recipe's.
var (
	// errLost (recipe.ErrLost): the session that owned the member's node
	// ended (or the node vanished), so the member is no longer in the
	// barrier. For the other members it counts as having left.
	errLost = queue.Kin("barrier: session lost, member no longer in the barrier", recipe.ErrLost)
	// errLeft (recipe.ErrReleased): Leave was already called on this
	// member.
	errLeft = queue.Kin("barrier: member already left", recipe.ErrReleased)
	// errConfig (recipe.ErrConfig): a bad barrier path, size or option.
	errConfig = queue.Kin("barrier: invalid configuration", recipe.ErrConfig)
)

// Options configures a DoubleBarrier.
type Options struct {
	// ID names the member inside node names; letters, digits, '.' and
	// '_'. Default: 16 random hex digits. Deterministic tests pass their
	// own.
	ID string

	_ struct{}
}

// checkPath refuses anything but an absolute node path other than "/".
func checkPath(p string) error {
	if !strings.HasPrefix(p, "/") || p == "/" || strings.HasSuffix(p, "/") || strings.Contains(p, "//") {
		return fmt.Errorf("%w: path %q must be an absolute node path other than /", errConfig, p)
	}
	return nil
}

// validate fills the default ID and checks it.
func (o Options) validate() (Options, error) {
	if o.ID == "" {
		b := make([]byte, 8)
		rand.Read(b)
		o.ID = hex.EncodeToString(b)
	}
	if !queue.ValidGUIDPart(o.ID) {
		return o, fmt.Errorf("%w: ID %q may hold only letters, digits, '.' and '_'", errConfig, o.ID)
	}
	return o, nil
}
