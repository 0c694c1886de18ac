package simcli_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/simcli"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zoo"
)

// randomData is a conn that writes a number from the global random
// source into every node it creates.
type randomData struct{ zkapi.Conn }

func (c randomData) Create(ctx context.Context, path string, _ []byte, mode zkapi.CreateMode) (string, error) {
	return c.Conn.Create(ctx, path, fmt.Appendf(nil, "%d", rand.Int()), mode)
}

// A run's first failure is replayed before it is reported: a recipe
// that reads the global random source is told where its two runs
// diverged, and the run still fails.
func TestRun_RefusesANondeterministicRecipe(t *testing.T) {
	ex, _ := zoo.Lookup(zoo.NameSplitDash)
	r := ex.Recipe
	r.Name = "nondet"
	r.Acquire = func(ctx context.Context, c zkapi.Conn, dir, id string) (recipe.Held, error) {
		return ex.Recipe.Acquire(ctx, randomData{c}, dir, id)
	}
	cli := &simcli.CLI{Name: "mycheck", Recipes: []recipe.Lock{r}}
	var out, errs strings.Builder
	code := cli.Run([]string{"run", "-recipe", "nondet", "-schedules", "20", "-out", t.TempDir()}, &out, &errs)
	if code != 1 || !strings.Contains(out.String(), "not reported as a violation: harness: the code under test does not replay deterministically") ||
		!strings.Contains(out.String(), "diverged at step ") {
		t.Errorf("exit %d:\n%s\n%s", code, out.String(), errs.String())
	}
}
