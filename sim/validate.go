package sim

import (
	"errors"
	"fmt"
	"math"
)

// Errors of a configuration that cannot run. Every entry point (Run, New,
// Explore) checks its inputs first, so that a bad option is an error that
// names the field and the range it must be in, never a panic, a hang or a
// verdict about the recipe.
var (
	// ErrConfig: a Config (or the programs given to Run) out of range.
	ErrConfig = errors.New("sim: invalid config")
	// ErrBounds: Bounds that cannot be searched.
	ErrBounds = errors.New("sim: bad exploration bounds")
)

// Limits of a Config. Every one is far above what a useful run needs; they
// are there so that a typo (a count with three zeros too many) is refused
// at once instead of running for hours or exhausting memory.
const (
	// MaxClients is the most clients one run may have. A step looks at
	// every client's enabled events, so a run's cost grows with the
	// square of its clients; measured (lock workload, default faults):
	// 64 clients x 3 acquisitions take 14 ms and 3.8k steps, 1000
	// clients x 1 take 3 s and still end at the default step bound,
	// unfinished, with a false no-progress verdict. Bugs of
	// coordination recipes show with a handful of clients; 64 leaves
	// room for herd measurements.
	MaxClients = 64
	// maxFollowers: an ensemble of at most 7 servers, the largest
	// voting ensemble ZooKeeper's documentation describes.
	maxFollowers = 6
	// MaxSteps bounds Config.MaxSteps: at about 5 µs a step with 64
	// clients, a run of a million steps takes seconds; a workload that
	// needs more is one to make smaller.
	MaxSteps = 1_000_000
	// maxPCTDepth bounds Config.PCTDepth: PCT's guarantee for a bug of
	// depth d falls as k^-(d-1) in the run's length k, so depths past a
	// handful find nothing a random walk would not.
	maxPCTDepth = 100
	// maxParallel bounds Bounds.Parallel: each worker keeps its own
	// visited set and re-runs its own schedules.
	maxParallel = 1024
)

// Validate reports the first setting of c out of its range, naming the
// field and the range: nil if c can run. Zero always means the default.
func (c Config) Validate() error {
	var buf [32]intRange // on the stack: Validate runs once a schedule
	for _, r := range c.ranges(buf[:0]) {
		if err := r.check(); err != nil {
			return fmt.Errorf("%w: %v", ErrConfig, err)
		}
	}
	return nil
}

// ranges lists the numeric settings of c with their allowed ranges, in
// the order of the fields, appended to rs.
func (c Config) ranges(rs []intRange) []intRange {
	rs = append(rs,
		intRange{"Server.TickMillis", c.Server.TickMillis, 0, math.MaxInt32, "0: 1000"},
		intRange{"Server.Followers", int64(c.Server.Followers), 0, maxFollowers, ""},
		intRange{"SessionTimeoutMs", c.SessionTimeoutMs, 0, math.MaxInt32, "0: 4 ticks; the server clamps it to 2..20 ticks"},
		intRange{"Faults.Percent", int64(c.Faults.Percent), 0, 100, ""},
	)
	for _, k := range faultKinds {
		rs = append(rs, intRange{budgetFields[k.kind], int64(*k.budget(&c.Faults)), 0, math.MaxInt32, ""})
	}
	return append(rs,
		intRange{"Faults.PauseTicks", int64(c.Faults.PauseTicks), 0, math.MaxInt32, "0: twice the session timeout"},
		intRange{"TickPercent", int64(c.TickPercent), 0, 100, "0: 5"},
		intRange{"MaxSteps", int64(c.MaxSteps), 0, MaxSteps, "0: 20000"},
		intRange{"DeadlockTicks", int64(c.DeadlockTicks), 0, math.MaxInt32, "0: 40"},
		intRange{"PCTDepth", int64(c.PCTDepth), 0, maxPCTDepth, "0: 3"},
		intRange{"PCTHorizon", int64(c.PCTHorizon), 0, MaxSteps, "0: 400"},
		intRange{"TickBudget", int64(c.TickBudget), -1, math.MaxInt32, "-1: no bound"},
		intRange{"SpinRequests", int64(c.SpinRequests), -1, math.MaxInt32, "0: 16; -1: never"},
	)
}

// budgetFields names, by kind, the Faults field that bounds a fault kind,
// built once rather than on every Validate.
var budgetFields = func() (names [numKinds]string) {
	for _, k := range faultKinds {
		names[k.kind] = "Faults." + budgetField(k.kind)
	}
	return names
}()

// budgetField is the name of the Faults field that bounds kind k.
func budgetField(k evKind) string {
	switch k {
	case evLoseRequest:
		return "LoseRequest"
	case evLoseReply:
		return "LoseReply"
	case evDisconnect:
		return "Disconnect"
	case evCrash:
		return "Crash"
	case evPause:
		return "Pause"
	case evReap:
		return "Reap"
	case evReorder:
		return "Reorder"
	case evAbandon:
		return "Abandon"
	}
	panic("sim: invariant: " + k.String() + " is not a fault")
}

// intRange is a setting and the range it must be in.
type intRange struct {
	field    string
	value    int64
	min, max int64
	note     string // what 0 means, or why the range
}

func (r intRange) check() error {
	if r.value >= r.min && r.value <= r.max {
		return nil
	}
	want := fmt.Sprintf("%d..%d", r.min, r.max)
	if r.value < r.min && (r.max == math.MaxInt32 || r.max == math.MaxInt64) {
		want = fmt.Sprintf("%d or more", r.min)
	}
	if r.note != "" {
		want += " (" + r.note + ")"
	}
	return fmt.Errorf("%s is %d, want %s", r.field, r.value, want)
}

// validatePrograms reports programs Run cannot run: none, more than
// MaxClients, or a nil one.
func validatePrograms(programs []Program) error {
	if len(programs) < 1 || len(programs) > MaxClients {
		return fmt.Errorf("%w: %d programs, want 1..%d (one a client)", ErrConfig, len(programs), MaxClients)
	}
	for i, p := range programs {
		if p == nil {
			return fmt.Errorf("%w: program %d (client c%d) is nil", ErrConfig, i, i+1)
		}
	}
	return nil
}

// Validate reports the first bound out of its range, naming it and the
// range: nil if the bounds can be searched.
func (b Bounds) Validate() error {
	for _, r := range []intRange{
		{"Deviations", int64(b.Deviations), -1, math.MaxInt32, "-1: no bound"},
		{"Depth", int64(b.Depth), 0, math.MaxInt32, "0: no bound"},
		{"Ticks", int64(b.Ticks), 0, math.MaxInt32, ""},
		{"MaxStates", int64(b.MaxStates), 0, math.MaxInt64, "0: no limit"},
		{"Budget", int64(b.Budget), 0, math.MaxInt64, "0: none"},
		{"Parallel", int64(b.Parallel), 0, maxParallel, "0: 1"},
		{"Shards", int64(b.Shards), 0, math.MaxInt32, "0: 1"},
		{"Shard", int64(b.Shard), 0, int64(max(b.Shards, 1)) - 1, "Shard of Shards"},
	} {
		if err := r.check(); err != nil {
			return fmt.Errorf("%w: %v", ErrBounds, err)
		}
	}
	if b.Deviations < 0 && b.Depth == 0 && !b.NoDeepening {
		return fmt.Errorf("%w: Deviations is -1 (no bound) and Depth 0 (no bound): deepening needs a Depth of 1 or more, or NoDeepening", ErrBounds)
	}
	return nil
}

// validateSearch reports why Explore cannot search sc under cfg within b:
// cfg's settings, b's, and sc's own when it has a Validate method (as
// the harness's workloads do), so that a bad workload is an error before
// the first schedule instead of a panic inside one.
func validateSearch(cfg Config, sc Scenario, b Bounds) error {
	if err := b.Validate(); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if v, ok := sc.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}
