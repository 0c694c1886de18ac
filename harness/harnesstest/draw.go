package harnesstest

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"

	"pgregory.net/rapid"
)

// A drawn check is what one rapid check runs: a workload shape and a
// configuration drawn within the caller's bounds, and the seed of its
// schedule. The schedule itself comes from NewSeeded(seed), so faults and
// ticks are as likely on every step as in `zksim run`; a decision list
// drawn by rapid would end after a few choices and every choice after it
// would be 0, never a fault and never a tick.
type drawn struct {
	seed    uint64
	subject harness.Subject
	config  sim.Config
	what    string // the subject drawn, for a failure message
}

// A finding is a violation class that some schedules showed, with the
// first schedule that showed it.
type finding struct {
	class     check.Class
	schedules int // how many schedules showed it
	index     int // the first one, counted from 1
	first     drawn
}

// schedulesPerCheck is how many schedules a check runs, from consecutive
// seeds. A check is one rapid draw of shape and configuration; running a
// few schedules of it costs little more than drawing, and the rarest zoo
// bug (zoo/existsabsence) shows in about 2% of schedules, too few for 100
// single schedules to find on every rapid seed.
const schedulesPerCheck = 10

// drawRecipeCheck draws a check of a lock workload: the number of
// clients and acquisitions up to w's (default 5 and 3); for the settings w
// leaves at 0, a share of reads (read/write recipes), an acquire deadline
// and the share of acquisitions that use it; and the configuration (see
// drawConfig).
func drawRecipeCheck(rt *rapid.T, r recipe.Lock, w harness.Workload, cfg sim.Config) drawn {
	w.Clients, w.Acquisitions = cmp.Or(w.Clients, 5), cmp.Or(w.Acquisitions, 3)
	// Half the checks run the whole workload, where most bugs are likeliest
	// (the shrinker finds the smallest one that still fails); the others a
	// smaller one.
	if !rapid.Bool().Draw(rt, "whole workload") {
		w.Clients = rapid.IntRange(min(2, w.Clients), w.Clients).Draw(rt, "clients")
		w.Acquisitions = rapid.IntRange(1, w.Acquisitions).Draw(rt, "acquisitions")
	}
	if w.HoldTicks == 0 {
		// Holds longer than a session timeout meet the bugs of a session
		// that dies (expiry, a client giving its session up) under a holder.
		w.HoldTicks = rapid.SampledFrom([]int{1, 6}).Draw(rt, "hold ticks")
	}
	if r.AcquireRead != nil && w.ReadPercent == 0 {
		w.ReadPercent = rapid.SampledFrom([]int{0, 50, 100}).Draw(rt, "read percent")
	}
	if w.TimeoutTicks == 0 {
		// Short deadlines make give-ups common, long ones rare; waiters
		// without one beside those with one turn leaks into deadlocks.
		w.TimeoutTicks = rapid.SampledFrom([]int{0, 4, 8, 12}).Draw(rt, "timeout ticks")
		if w.TimeoutTicks > 0 && w.TimeoutPercent == 0 {
			w.TimeoutPercent = rapid.SampledFrom([]int{50, 100}).Draw(rt, "timeout percent")
		}
	}
	c := drawConfig(rt, harness.Lock(r, w), cfg)
	c.what = fmt.Sprintf("%s x %s", plural(w.Clients, "client"), plural(w.Acquisitions, "acquisition"))
	if r.AcquireRead != nil {
		c.what += fmt.Sprintf(", %d%% reads", w.ReadPercent)
	}
	if w.TimeoutTicks > 0 {
		c.what += fmt.Sprintf(", deadline %d ticks on %d%%", w.TimeoutTicks, cmp.Or(w.TimeoutPercent, 100))
	}
	return c
}

// drawBarrierCheck draws a check of a barrier workload within w's
// bounds: 2 to Clients (default 4) clients of 1 to Rounds (default 2)
// rounds, the single barrier instead in half the checks if the recipe
// has one, a random walk or PCT, and the configuration (see drawConfig).
func drawBarrierCheck(rt *rapid.T, r recipe.Barrier, w harness.BarrierWorkload, cfg sim.Config) drawn {
	w.Clients = rapid.IntRange(2, max(2, cmp.Or(w.Clients, 4))).Draw(rt, "clients")
	w.Rounds = rapid.IntRange(1, cmp.Or(w.Rounds, 2)).Draw(rt, "rounds")
	w.Single = r.Single != nil && rapid.Bool().Draw(rt, "single")
	c := drawConfig(rt, harness.Barrier(r, w), cfg)
	c.config.PCT = rapid.Bool().Draw(rt, "pct")
	c.what = shape(c.subject.Shape())
	if c.config.PCT {
		c.what += ", pct"
	}
	return c
}

// drawShape draws a check of any Subject: half the checks run the whole
// of it, the others a smaller shape (none smaller for a shape of Each
// 0), and the configuration (see drawConfig).
func drawShape(rt *rapid.T, w harness.Subject, cfg sim.Config) drawn {
	if sh := w.Shape(); sh.Each > 0 && !rapid.Bool().Draw(rt, "whole workload") {
		sh.Clients = rapid.IntRange(min(2, sh.Clients), sh.Clients).Draw(rt, "clients")
		sh.Each = rapid.IntRange(1, sh.Each).Draw(rt, "each")
		w = w.Resize(sh)
	}
	c := drawConfig(rt, w, cfg)
	c.what = shape(w.Shape())
	if st, ok := w.(fmt.Stringer); ok {
		c.what = st.String()
	}
	return c
}

// drawConfig draws the seed and the configuration of a check: each fault
// kind cfg allows is kept or left out (swarm testing: a run with fewer
// kinds goes deeper into the ones it has, and one fault does not mask
// another), a follower when cfg has none, and the server's seed when cfg
// leaves it at 0.
func drawConfig(rt *rapid.T, s harness.Subject, cfg sim.Config) drawn {
	seed := rapid.Uint64().Draw(rt, "seed")
	for _, k := range simhook.FaultKinds() {
		if n := k.Budget(&cfg.Faults); *n > 0 && !rapid.Bool().Draw(rt, k.Name) {
			*n = 0
		}
	}
	if cfg.Server.Followers == 0 {
		cfg.Server.Followers = rapid.IntRange(0, 1).Draw(rt, "followers")
	}
	return drawn{seed: seed, subject: s, config: cfg}
}

// explore runs the checks rapid draws with draw (-rapid.checks of them,
// default 100), each schedulesPerCheck schedules, untraced and
// to the end, and returns every violation class they showed, in the order
// first seen, and the number of schedules run. It does not stop at the
// first failure: a recipe can fail in several ways, and a class seen in
// few schedules is worth knowing as much as the commonest. rapid's own
// shrinking is not used (the property passes) because a schedule is
// chaotic in its seed: counterexample.ShrinkFound shrinks what was found.
//
// If until is not nil, the checks after the one in which until(found)
// became true run nothing (rapid still counts them).
func explore(tb rapid.TB, draw func(*rapid.T) drawn, until func([]finding) bool) (found []finding, schedules int, err error) {
	tb.Helper()
	defer simhook.KeepWorkers()()
	byClass := map[check.Class]int{} // class -> index in found
	rapid.Check(quietTB{tb, &found}, func(rt *rapid.T) {
		c := draw(rt)
		for i := range uint64(schedulesPerCheck) {
			if err != nil || (until != nil && until(found)) {
				return // (a bad configuration fails every schedule alike)
			}
			one := c
			one.seed += i
			schedules++
			cfg := one.config
			cfg.NoTrace = true
			var rep *harness.Report
			if rep, err = harness.Run(cfg, sim.NewSeeded(one.seed), one.subject); err != nil {
				return
			}
			noteRun(tb, rep.Result)
			for _, class := range rep.Classes() {
				j, ok := byClass[class]
				if !ok {
					j, byClass[class] = len(found), len(found)
					found = append(found, finding{class: class, index: schedules, first: one})
				}
				found[j].schedules++
			}
		}
	})
	return found, schedules, err
}

// quietTB passes rapid's reports on, except its closing "OK, passed"
// line once a check has failed: explore's property passes whatever the
// checks found, and the caller reports that.
type quietTB struct {
	rapid.TB
	found *[]finding
}

func (q quietTB) Logf(format string, args ...any) {
	if len(*q.found) == 0 {
		q.TB.Helper()
		q.TB.Logf(format, args...)
	}
}

func (q quietTB) Log(args ...any) {
	if len(*q.found) == 0 {
		q.TB.Helper()
		q.TB.Log(args...)
	}
}

// describe words a check for a failure message.
func (c drawn) describe() string {
	return fmt.Sprintf("seed %d, %s, %s, faults %s", c.seed, c.what, plural(c.config.Server.Followers, "follower"), faultList(c.config.Faults))
}

// shape words a workload's size: "2 clients x 1 round", "3 clients".
func shape(s harness.Shape) string {
	if s.Unit == "" {
		return plural(s.Clients, "client")
	}
	return plural(s.Clients, "client") + " x " + plural(s.Each, strings.TrimSuffix(s.Unit, "s"))
}

// faultList words a fault budget: "lose-reply=2 crash=1 at 10%", or
// "none".
func faultList(f sim.Faults) string {
	var kinds []string
	for _, k := range simhook.FaultKinds() {
		if n := *k.Budget(&f); n > 0 {
			kinds = append(kinds, fmt.Sprintf("%s=%d", k.Name, n))
		}
	}
	if len(kinds) == 0 || f.Percent == 0 {
		return "none"
	}
	return fmt.Sprintf("%s at %d%%", strings.Join(kinds, " "), f.Percent)
}

// plural words a count of things: "1 client", "3 clients", "2 classes".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	if strings.HasSuffix(thing, "s") {
		return fmt.Sprintf("%d %ses", n, thing)
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
