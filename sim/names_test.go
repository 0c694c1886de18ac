package sim_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/zksim/zksim/sim"
)

// TestClient_Names: client i is named c<i+1> in traces, past the names
// made in advance too, and its index is i.
func TestClient_Names(t *testing.T) {
	const n = 20
	programs := make([]sim.Program, n)
	got := make([]string, n)
	for i := range programs {
		programs[i] = func(_ context.Context, c *sim.Client) error {
			got[c.Index()] = c.Name()
			return nil
		}
	}
	if _, err := sim.Run(sim.Config{}, sim.NewSeeded(1), programs...); err != nil {
		t.Fatal(err)
	}
	for i, name := range got {
		if want := "c" + strconv.Itoa(i+1); name != want {
			t.Errorf("client %d is named %q, want %q", i, name, want)
		}
	}
}
