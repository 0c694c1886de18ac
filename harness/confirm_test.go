package harness_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/counterexample"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zoo"
)

// creates counts the creates of every run in this process: the global
// state a recipe must not keep.
var creates int

// counting is a conn that puts a process-wide count into the data of
// every node it creates.
type counting struct{ zkapi.Conn }

func (c counting) Create(ctx context.Context, path string, _ []byte, mode zkapi.CreateMode) (string, error) {
	creates++
	return c.Conn.Create(ctx, path, fmt.Appendf(nil, "%d", creates), mode)
}

// Confirm passes a run that replays, and names the first step where a
// run that reads global state diverged from itself.
func TestConfirm_NamesWhereARunDiverged(t *testing.T) {
	good := zoo.Mutex()
	bad := good
	bad.Name = "counting"
	bad.Acquire = func(ctx context.Context, c zkapi.Conn, dir, id string) (recipe.Held, error) {
		return good.Acquire(ctx, counting{c}, dir, id)
	}
	for _, r := range []recipe.Lock{good, bad} {
		w := harness.Lock(r, harness.Workload{Clients: 2, Acquisitions: 1})
		var recorded []int
		rec := sim.Record(sim.NewSeeded(1), &recorded)
		rep, err := harness.Run(sim.Config{}, rec, w)
		if err != nil {
			t.Fatal(err)
		}
		err = counterexample.Confirm(harness.Counterexample{Subject: w, Decisions: recorded, Report: rep})
		switch {
		case r.Name == good.Name && err != nil:
			t.Errorf("%s: %v", r.Name, err)
		case r.Name == bad.Name && (!errors.Is(err, counterexample.ErrNondeterministic) || !strings.Contains(fmt.Sprint(err), "diverged at step ")):
			t.Errorf("%s: want where it diverged, got %v", r.Name, err)
		}
	}
}
