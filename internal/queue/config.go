package queue

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/zksim/zksim/recipe"
)

// ErrConfig is the error of a bad lock path or option: recipe.ErrConfig.
var ErrConfig = recipe.ErrConfig

// CheckConfig is the one check of a lock's directory and holder id that
// lock, rwlock and the zoo share: dir must be an absolute node path other
// than "/", and id a guid part (letters, digits, '.' and '_'). An empty
// id is replaced by 16 random hex digits, which it returns.
func CheckConfig(dir, id string) (string, error) {
	if !strings.HasPrefix(dir, "/") || dir == "/" || strings.HasSuffix(dir, "/") || strings.Contains(dir, "//") {
		return id, fmt.Errorf("%w: lock path %q must be an absolute node path other than /", ErrConfig, dir)
	}
	if id == "" {
		b := make([]byte, 8)
		rand.Read(b)
		id = hex.EncodeToString(b)
	}
	if !ValidGUIDPart(id) {
		return id, fmt.Errorf("%w: ID %q may hold only letters, digits, '.' and '_'", ErrConfig, id)
	}
	return id, nil
}
