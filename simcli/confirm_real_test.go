package simcli_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/ensemble"
	"github.com/zksim/zksim/internal/longtest"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/simcli"
	"github.com/zksim/zksim/zoo"
)

// runEnsemble runs zksim run on a 3-node ensemble it starts, as
// `zksim run -ensemble 3` does, and returns its exit code and report;
// it skips the test where ZooKeeper is not installed.
func runEnsemble(t *testing.T, recipes []recipe.Lock, args ...string) (int, string) {
	t.Helper()
	if err := ensemble.Installed(ensemble.Options{N: 3}); err != nil {
		t.Skipf("needs Java and Debian's zookeeper package: %v", err)
	}
	var out, errb bytes.Buffer
	cli := &simcli.CLI{Name: "zksim", Recipes: recipes}
	code := cli.Run(append([]string{"run", "-ensemble", "3"}, args...), &out, &errb)
	return code, out.String() + errb.String()
}

// Found in the simulator, confirmed on the real server
// (docs/real-ensemble.md): the good lock survives lost requests and
// replies, a cut connection and an isolated leader on a real 3-node
// ensemble (the first 7 s of the CI step's run, which goes on to the
// paused and killed members); and the lost create without a GUID
// leaves its first node behind there, an orphan (seed 2 loses the reply
// to a create). Each run starts its own ensemble: about 15 s in all, a
// long test.
func TestRunEnsemble_GoodSurvivesExhibitFound(t *testing.T) {
	longtest.Skip(t)
	code, out := runEnsemble(t, []recipe.Lock{zoo.Mutex()}, "-recipe", "lock", "-seed", "36", "-time", "7s",
		"-acquisitions", "100", "-hold", "20ms",
		"-faults", "lose-request=1,lose-reply=2,disconnect=1,pause-member=1,kill-member=1,isolate-leader=1,lag-member=1")
	if code != simcli.ExitOK || !strings.Contains(out, "violations             0") || !injected(out, "isolate-leader") {
		t.Errorf("lock: exit %d, want %d, no violation and the leader isolated\n%s", code, simcli.ExitOK, out)
	}
	ex, _ := zoo.Lookup(zoo.NameNoGUIDRetry)
	code, out = runEnsemble(t, []recipe.Lock{ex.Recipe}, "-recipe", ex.Name, "-seed", "2", "-time", "3s",
		"-faults", "lose-reply=3")
	if code != simcli.ExitViolation || !strings.Contains(out, "    "+string(check.Orphan)+": ") || !injected(out, "lose-reply") {
		t.Errorf("%s: exit %d, want %d with an orphan after a lost reply\n%s", ex.Name, code, simcli.ExitViolation, out)
	}
}
