package harness

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/sim"
)

// TraceFile is a saved run: what to run, the decisions that chose every
// step, and the trace it produced. Its text form is line-oriented:
//
//	zksim-trace v1
//	recipe lock
//	workload clients=5 acquisitions=3 hold=1 read=0 timeout=0 timeout-percent=100 unfenced=false dir=/locks/l
//	server seed=0 followers=0 overflow=pin reconnect=next
//	faults percent=10 lose-request=2 lose-reply=2 disconnect=2 crash=1 pause=1 pause-ticks=8 reap=1 reorder=0 abandon=0
//	run tick-ms=1000 session-ms=4000 tick-percent=5 max-steps=20000 deadlock-ticks=40
//	decisions 0 17 3 ...
//	trace
//	    1 t0   send c1 create /locks/l/lock-c1_0.1- "" ephemeral-sequential -> ...
//
// The recipe line is the Subject's Name and the workload line its Spec:
// a run of client programs (Programs) has "recipe programs" and
// "workload clients=3"; a barrier recipe's workload line names the
// barrier workload, whose keys are its own:
//
//	workload barrier clients=3 rounds=2 work=1 attempts=2 late=50 single=false dir=/barriers/b
//
// The server line's reconnect=next names the clients' reconnect policy,
// go-zookeeper's; a file without it was recorded under an older one and
// is refused with an ErrTrace that says so. Replaying a file must
// reproduce the trace byte for byte.
type TraceFile struct {
	Recipe    string // what ran: Subject.Name
	Workload  string // its settings: Subject.Spec
	Config    sim.Config
	Decisions []int
	Trace     []string
}

var (
	// ErrTrace is wrapped by every error about a malformed trace file.
	ErrTrace = errors.New("sim: bad trace file")
	// errLegacyReconnect is wrapped (with ErrTrace, which callers test
	// for) by the error about a file whose server line has no reconnect
	// key: zksim wrote those before commit a6cb805 (2026-11-24), when its
	// clients reconnected back to the replica they had. The simulator has
	// only go-zookeeper's policy now, under which such a file's decisions
	// make another run: replaying it would silently show something else.
	// Its run is found again by the search that found it.
	errLegacyReconnect = errors.New("trace recorded with the legacy reconnect policy of zksim before commit a6cb805 " +
		"(2026-11-24; no reconnect=next on its server line), which zksim no longer has; re-run the search " +
		"(zksim run with the file's recipe and settings) to record it again")
)

func (f TraceFile) String() string {
	var b strings.Builder
	c, fl := f.Config, f.Config.Faults
	fmt.Fprintf(&b, "zksim-trace v1\nrecipe %s\nworkload %s\n", f.Recipe, f.Workload)
	// reconnect=next marks the clients' one reconnect policy: files
	// without it were recorded under another and are refused.
	fmt.Fprintf(&b, "server seed=%d followers=%d overflow=%s reconnect=next\n", c.Server.Seed, c.Server.Followers, c.Server.Overflow)
	fmt.Fprintf(&b, "faults percent=%d lose-request=%d lose-reply=%d disconnect=%d crash=%d pause=%d pause-ticks=%d reap=%d reorder=%d abandon=%d\n",
		fl.Percent, fl.LoseRequest, fl.LoseReply, fl.Disconnect, fl.Crash, fl.Pause, fl.PauseTicks, fl.Reap, fl.Reorder, fl.Abandon)
	fmt.Fprintf(&b, "run tick-ms=%d session-ms=%d tick-percent=%d max-steps=%d deadlock-ticks=%d pct=%t pct-depth=%d pct-horizon=%d",
		c.Server.TickMillis, c.SessionTimeoutMs, c.TickPercent, c.MaxSteps, c.DeadlockTicks, c.PCT, c.PCTDepth, c.PCTHorizon)
	if c.Flat { // older files have neither key
		fmt.Fprintf(&b, " flat=true tick-budget=%d", c.TickBudget)
	}
	b.WriteString("\n")
	b.WriteString("decisions")
	for _, d := range f.Decisions {
		fmt.Fprintf(&b, " %d", d)
	}
	b.WriteString("\ntrace\n")
	for _, l := range f.Trace {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// ParseTraceFile reads the text form; errors name the line.
func ParseTraceFile(text string) (TraceFile, error) {
	var f TraceFile
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	line := 0
	next := func(want string) ([]string, error) {
		if !sc.Scan() {
			return nil, fmt.Errorf("%w: line %d: missing %q line (file truncated?)", ErrTrace, line+1, want)
		}
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || fields[0] != want {
			return nil, fmt.Errorf("%w: line %d: want a %q line, got %q", ErrTrace, line, want, sc.Text())
		}
		return fields[1:], nil
	}
	if h, err := next("zksim-trace"); err != nil || len(h) != 1 || h[0] != "v1" {
		if err == nil {
			err = fmt.Errorf("%w: line 1: unsupported version %v", ErrTrace, h)
		}
		return f, err
	}
	steps := []struct {
		key   string
		apply func([]string) error
	}{
		{"recipe", func(v []string) error {
			if len(v) != 1 {
				return errors.New("want one recipe name")
			}
			f.Recipe = v[0]
			return nil
		}},
		{"workload", func(v []string) error { f.Workload = strings.Join(v, " "); return nil }},
		{"server", func(v []string) error { return f.parseServer(v) }},
		{"faults", func(v []string) error { return f.parseFaults(v) }},
		{"run", func(v []string) error { return f.parseRun(v) }},
		{"decisions", func(v []string) error {
			for _, s := range v {
				d, err := strconv.Atoi(s)
				if err != nil || d < 0 {
					return fmt.Errorf("bad decision %q", s)
				}
				f.Decisions = append(f.Decisions, d)
			}
			return nil
		}},
		{"trace", func([]string) error { return nil }},
	}
	for _, s := range steps {
		v, err := next(s.key)
		if err != nil {
			return f, err
		}
		if err := s.apply(v); err != nil {
			return f, fmt.Errorf("%w: line %d: %w", ErrTrace, line, err)
		}
	}
	for sc.Scan() {
		f.Trace = append(f.Trace, sc.Text())
	}
	return f, sc.Err()
}

// keyvals parses key=value fields into ints, bools and strings.
func keyvals(fields []string, known map[string]any) error {
	for _, fld := range fields {
		k, v, ok := strings.Cut(fld, "=")
		dst, found := known[k]
		if !ok || !found {
			return fmt.Errorf("unknown field %q", fld)
		}
		switch d := dst.(type) {
		case *int:
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("%s: not a count: %q", k, v)
			}
			*d = n
		case *int32:
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return fmt.Errorf("%s: not a 32-bit number: %q", k, v)
			}
			*d = int32(n)
		case *uint64:
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return fmt.Errorf("%s: not a number: %q", k, v)
			}
			*d = n
		case *bool:
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("%s: not a bool: %q", k, v)
			}
			*d = b
		case *string:
			*d = v
		}
	}
	return nil
}

// splitSpec is a workload line's fields.
func splitSpec(spec string) []string { return strings.Fields(spec) }

// parseServer reads the server line. A file without a reconnect key was
// recorded before the clients' policy became go-zookeeper's: it is
// refused (errLegacyReconnect).
func (f *TraceFile) parseServer(v []string) error {
	var overflow, reconnect string
	s := &f.Config.Server
	if err := keyvals(v, map[string]any{"seed": &s.Seed, "followers": &s.Followers, "overflow": &overflow,
		"reconnect": &reconnect}); err != nil {
		return err
	}
	switch reconnect {
	case "next":
	case "":
		return errLegacyReconnect
	default:
		return fmt.Errorf("reconnect: want next, got %q", reconnect)
	}
	switch overflow {
	case "pin", "":
	case "wrap":
		s.Overflow = fakezk.OverflowWrap
	default:
		return fmt.Errorf("overflow: want pin or wrap, got %q", overflow)
	}
	return nil
}

// parseFaults reads the faults line. A key missing is 0: files written
// before a fault kind existed (abandon) replay as they were recorded.
func (f *TraceFile) parseFaults(v []string) error {
	fl := &f.Config.Faults
	keys := map[string]any{"percent": &fl.Percent, "pause-ticks": &fl.PauseTicks}
	for _, k := range simhook.FaultKinds() {
		keys[k.Name] = k.Budget(fl)
	}
	return keyvals(v, keys)
}

func (f *TraceFile) parseRun(v []string) error {
	c := &f.Config
	var tick, session int
	var budget string // negative: no bound (sim.Config.TickBudget)
	if err := keyvals(v, map[string]any{"tick-ms": &tick, "session-ms": &session,
		"tick-percent": &c.TickPercent, "max-steps": &c.MaxSteps, "deadlock-ticks": &c.DeadlockTicks,
		"pct": &c.PCT, "pct-depth": &c.PCTDepth, "pct-horizon": &c.PCTHorizon,
		"flat": &c.Flat, "tick-budget": &budget}); err != nil {
		return err
	}
	if budget != "" {
		n, err := strconv.Atoi(budget)
		if err != nil {
			return fmt.Errorf("tick-budget: not a number: %q", budget)
		}
		c.TickBudget = n
	}
	c.Server.TickMillis, c.SessionTimeoutMs = int64(tick), int64(session)
	return nil
}

// Subject is what the file ran, as the Subject w makes of its workload
// line (w.Parse: w is the recipe or programs it was saved for); an
// ErrTrace if the file is of another recipe, or w cannot read the line.
func (f TraceFile) Subject(w Subject) (Subject, error) {
	if f.Recipe != w.Name() {
		return nil, fmt.Errorf("%w: line 2: a trace of %q, not of %q", ErrTrace, f.Recipe, w.Name())
	}
	p, err := w.Parse(f.Workload)
	if err != nil {
		return nil, fmt.Errorf("%w: line 3: %w", ErrTrace, err)
	}
	return p, nil
}

// Replay runs a trace file again as f.Subject(w) and returns the new
// report; the trace must match.
func Replay(f TraceFile, w Subject) (*Report, error) {
	w, err := f.Subject(w)
	if err != nil {
		return nil, err
	}
	rep, err := Run(f.Config, sim.Replay(f.Decisions), w)
	if err != nil {
		return nil, err
	}
	if got, want := sim.TraceString(rep.Result.Trace), sim.TraceString(f.Trace); got != want {
		return rep, fmt.Errorf("sim: replay diverged from the saved trace at line %d", firstDiff(rep.Result.Trace, f.Trace)+1)
	}
	return rep, nil
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
