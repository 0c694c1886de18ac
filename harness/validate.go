package harness

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/zksim/zksim/sim"
)

// ErrWorkload is wrapped by every reason zksim's workloads (Workload,
// BarrierWorkload) cannot run: Run, Explore and Replay return it before
// the first schedule.
var ErrWorkload = errors.New("harness: invalid workload")

// maxRounds bounds a workload's acquisitions (or rounds) per client. A
// run's steps grow with clients x acquisitions (about 20 steps an
// acquisition under the default faults, measured), past a hundred a
// client only repeats itself, and 64 clients x 100 already need more
// steps than the default step bound allows. Its clients are at most
// sim.MaxClients.
const maxRounds = 100

// Validate reports why w cannot run under cfg: cfg's settings
// (sim.Config.Validate), then w's (its Validate method, if it has one:
// Lock's and Barrier's check their recipe and settings). The go test entry points
// call it before their first check, so that a bad option fails the test
// with its name and range.
func Validate(cfg sim.Config, w Subject) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	return validate(w)
}

// Validate reports why the lock workload cannot run: its recipe cannot
// be checked (recipe.Lock.Validate), or a setting is out of its range.
func (w lockWorkload) Validate() error {
	if err := w.Recipe.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrWorkload, err)
	}
	return w.Workload.Validate()
}

// Validate reports the first setting of w out of its range, naming the
// field and the range (zero always means the default).
func (w Workload) Validate() error {
	return validateFields("Workload", w.Dir, []field{
		{"Clients", w.Clients, 0, sim.MaxClients, "0: 5"},
		{"Acquisitions", w.Acquisitions, 0, maxRounds, "0: 3"},
		{"HoldTicks", w.HoldTicks, 0, math.MaxInt32, "0: 1"},
		{"ReadPercent", w.ReadPercent, 0, 100, ""},
		{"TimeoutTicks", w.TimeoutTicks, 0, math.MaxInt32, "0: no deadline"},
		{"TimeoutPercent", w.TimeoutPercent, 0, 100, "0: 100"},
		{"SequenceStart", int(w.SequenceStart), 0, math.MaxInt32, "0: no"},
	})
}

// Validate reports why the barrier workload cannot run: its recipe
// cannot be checked (recipe.Barrier.Validate), or does not have what
// the workload runs (Single needs the recipe's Single, the double
// barrier its Enter), or a setting is out of its range.
func (w barrierWorkload) Validate() error {
	if err := w.Recipe.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrWorkload, err)
	}
	switch {
	case w.Single && w.Recipe.Single == nil:
		return fmt.Errorf("%w: BarrierWorkload.Single is set and recipe %s has no Single barrier", ErrWorkload, w.Recipe.Name)
	case !w.Single && w.Recipe.Enter == nil:
		return fmt.Errorf("%w: recipe %s has no Enter (a double barrier), want BarrierWorkload.Single for its single barrier", ErrWorkload, w.Recipe.Name)
	}
	return w.BarrierWorkload.Validate()
}

// Validate reports the first setting of w out of its range, naming the
// field and the range (zero always means the default).
func (w BarrierWorkload) Validate() error {
	return validateFields("BarrierWorkload", w.Dir, []field{
		{"Clients", w.Clients, 0, sim.MaxClients, "0: 3"},
		{"Rounds", w.Rounds, 0, maxRounds, "0: 2"},
		{"WorkTicks", w.WorkTicks, 0, math.MaxInt32, "0: 1"},
		{"Attempts", w.Attempts, 0, maxRounds, "0: 2"},
		{"LatePercent", w.LatePercent, -1, 100, "0: 50, -1: none"},
	})
}

// field is a workload's setting and the range it must be in.
type field struct {
	name     string
	value    int
	min, max int
	note     string // what 0 means
}

// validateFields checks the directory (if set) and each field of the
// workload called what.
func validateFields(what, dir string, fs []field) error {
	if dir != "" {
		if err := checkDir(dir); err != nil {
			return fmt.Errorf("%w: %s.Dir is %q, want %v", ErrWorkload, what, dir, err)
		}
	}
	for _, f := range fs {
		if f.value >= f.min && f.value <= f.max {
			continue
		}
		want := fmt.Sprintf("%d..%d", f.min, f.max)
		if f.value < f.min && f.max == math.MaxInt32 {
			want = fmt.Sprintf("%d or more", f.min)
		}
		if f.note != "" {
			want += " (" + f.note + ")"
		}
		return fmt.Errorf("%w: %s.%s is %d, want %s", ErrWorkload, what, f.name, f.value, want)
	}
	return nil
}

// checkDir says what a workload's directory lacks to be a ZooKeeper path
// the recipes can create nodes under: absolute, not the root, no empty,
// "." or ".." segment, no trailing slash.
func checkDir(dir string) error {
	if !strings.HasPrefix(dir, "/") || dir == "/" {
		return errors.New("an absolute path other than /")
	}
	for _, seg := range strings.Split(dir[1:], "/") {
		if seg == "" || seg == "." || seg == ".." {
			return errors.New("a path without empty, . or .. segments or a trailing /")
		}
	}
	return nil
}
