package nemesis_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/nemesis"
	"github.com/zksim/zksim/internal/simhook"
	_ "github.com/zksim/zksim/sim" // fills simhook.FaultKinds
)

// Every fault kind of the simulator is either injected on real servers
// under the same name (and old spellings), or refused with its reason:
// never unknown.
func TestParse_SimulatorSpelling(t *testing.T) {
	for _, k := range simhook.FaultKinds() {
		for _, name := range append([]string{k.Name}, k.Aliases...) {
			f, err := nemesis.Parse(name + "=2")
			switch {
			case errors.Is(err, nemesis.ErrRefused):
				if nemesis.Doc(k.Name) == "" {
					t.Errorf("%s refused without a reason", name)
				}
			case err != nil:
				t.Errorf("%s: %v, want it injected or refused", name, err)
			case f.Count(k.Name) != 2:
				t.Errorf("%s=2 counts %d of %s", name, f.Count(k.Name), k.Name)
			}
		}
	}
}

func TestParse_Spec(t *testing.T) {
	f, err := nemesis.Parse("pause, drop-reply=3,lose-request=0,expire=2,kill-member")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.String(), "lose-reply=3,pause=1,expire=2,kill-member=1"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if f.Total() != 7 {
		t.Errorf("Total() = %d, want 7", f.Total())
	}
	for _, spec := range []string{"none", "default"} {
		if f, err := nemesis.Parse(spec); err != nil || f.Total() != 0 || f.String() != "none" {
			t.Errorf("%s: %v, %v", spec, f, err)
		}
	}
}

func TestParse_Refused(t *testing.T) {
	for spec, want := range map[string]error{
		"reorder":               nemesis.ErrRefused,
		"reap=1":                nemesis.ErrRefused,
		"abandon":               nemesis.ErrRefused,
		"percent=20":            nemesis.ErrRefused,
		"gc":                    nemesis.ErrSpec,
		"pause=x":               nemesis.ErrSpec,
		"pause=-1":              nemesis.ErrSpec,
		"lose-reply,drop-reply": nemesis.ErrSpec,
	} {
		if _, err := nemesis.Parse(spec); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", spec, err, want)
		}
	}
}

// Member faults need members the run controls; client faults do not.
func TestFaults_CheckMembers(t *testing.T) {
	f, _ := nemesis.Parse("pause-member,lose-reply")
	if err := f.CheckMembers(false); !errors.Is(err, nemesis.ErrRefused) {
		t.Errorf("pause-member without members: %v", err)
	}
	if err := f.CheckMembers(true); err != nil {
		t.Errorf("pause-member with members: %v", err)
	}
	g, _ := nemesis.Parse("lose-reply,crash,expire")
	if err := g.CheckMembers(false); err != nil {
		t.Errorf("client faults without members: %v", err)
	}
	for _, kind := range []string{"isolate-leader", "lag-member"} {
		h, err := nemesis.Parse(kind)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if err := h.CheckMembers(false); !errors.Is(err, nemesis.ErrRefused) {
			t.Errorf("%s with -servers: %v, want ErrRefused", kind, err)
		}
		if err := h.CheckPeers(1); !errors.Is(err, nemesis.ErrRefused) {
			t.Errorf("%s on a standalone server: %v, want ErrRefused", kind, err)
		}
		if err := h.CheckPeers(3); err != nil {
			t.Errorf("%s on 3 members: %v", kind, err)
		}
	}
	if err := f.CheckPeers(1); err != nil {
		t.Errorf("pause-member on a standalone server: %v", err)
	}
}

// A schedule comes from the seed alone: the same seed, the same
// schedule; each client fault on its own request of its client, each
// member fault over the run's requests.
func TestDraw_Seeded(t *testing.T) {
	f, _ := nemesis.Parse("lose-request=3,lose-reply=3,disconnect=3,pause=2,crash,expire=4,pause-member=2,kill-member,isolate-leader=2,lag-member=3")
	plan := nemesis.Plan{Seed: 7, Clients: 3, Members: 3, Requests: 4}
	a, b := nemesis.Draw(f, plan), nemesis.Draw(f, plan)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two draws differ:\n%v\n%v", a, b)
	}
	plan.Seed = 8
	if reflect.DeepEqual(a, nemesis.Draw(f, plan)) {
		t.Error("seeds 7 and 8 drew the same schedule")
	}
	counts, used := map[string]int{}, map[[2]int64]bool{}
	for _, x := range a {
		counts[x.Kind]++
		member := x.Client < 0
		switch {
		case x.Kind == nemesis.IsolateLeader && x.Member != -1:
			t.Errorf("isolate-leader on member %d, want the leader (-1)", x.Member)
		case x.Kind == nemesis.LagMember && (x.For < 500*time.Millisecond || x.For > 1500*time.Millisecond):
			t.Errorf("lag-member for %v, want 0.5 to 1.5 s (below syncLimit x tickTime)", x.For)
		case member && (x.Client != -1 || x.Member < -1 || x.Member >= 3 || x.At < 1 || x.At > 12 || x.For <= 0):
			t.Errorf("member fault %+v out of range", x)
		case !member && (x.Client < 0 || x.Client >= 3 || x.Member != -1 || x.At < 1):
			t.Errorf("client fault %+v out of range", x)
		case !member && used[[2]int64{int64(x.Client), x.At}]:
			t.Errorf("two faults on client %d's request %d", x.Client, x.At)
		}
		used[[2]int64{int64(x.Client), x.At}] = !member
	}
	want := map[string]int{"lose-request": 3, "lose-reply": 3, "disconnect": 3, "pause": 2, "crash": 1, "pause-member": 2, "kill-member": 1,
		"isolate-leader": 2, "lag-member": 3}
	if !reflect.DeepEqual(counts, want) {
		t.Errorf("drew %v, want %v (expire strikes holders, not moments)", counts, want)
	}
}
