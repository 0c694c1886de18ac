package simcli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zksim/zksim/sim"
)

// faultKinds names every fault -faults accepts, with what it does. The
// names are the sim package's event kinds, and zksim serve's fault spec
// uses the same ones for the faults it shares; alias is the spelling
// serve used before (drop-reply), accepted here too so that one
// vocabulary, old spellings included, works everywhere.
var faultKinds = []struct {
	name, alias, doc string
	set              func(f *sim.Faults, n int)
}{
	{"lose-request", "drop-request", "a request is lost before the server sees it (connection loss, nothing applied)", func(f *sim.Faults, n int) { f.LoseRequest = n }},
	{"lose-reply", "drop-reply", "a request is applied and its reply lost (the lost create)", func(f *sim.Faults, n int) { f.LoseReply = n }},
	{"disconnect", "", "a client's connection drops; it reconnects and re-registers its watches", func(f *sim.Faults, n int) { f.Disconnect = n }},
	{"crash", "", "a client stops for good; its session lingers until it expires", func(f *sim.Faults, n int) { f.Crash = n }},
	{"pause", "", "a client stops for longer than its session timeout (a GC pause)", func(f *sim.Faults, n int) { f.Pause = n }},
	{"reap", "", "the container reaper deletes the empty lock directory", func(f *sim.Faults, n int) { f.Reap = n }},
	{"abandon", "", "a client gives up its session on its own for a new one; the old session and its nodes live on until it expires (CURATOR-498)", func(f *sim.Faults, n int) { f.Abandon = n }},
	{"reorder", "", "ILLEGAL: a reply overtakes earlier notifications (breaks ZooKeeper's order)", func(f *sim.Faults, n int) { f.Reorder = n }},
}

// defaultFaults is every legal fault, a few of each, at 10% of steps.
var defaultFaults = sim.Faults{Percent: 10, LoseRequest: 2, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}

// oneOfEach is the exhaustive strategy's default: one fault of every
// legal kind.
var oneOfEach = sim.Faults{LoseRequest: 1, LoseReply: 1, Disconnect: 1, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}

// parseFaults reads -faults: "default", "none", or a comma list of
// kind=count (a bare kind means 1), with percent=P for the rate. A list
// that names no kind (percent=50) keeps the default kinds.
func parseFaults(spec string) (sim.Faults, error) {
	switch spec {
	case "default", "all", "":
		return defaultFaults, nil
	case "none":
		return sim.Faults{}, nil
	}
	f := sim.Faults{Percent: 10}
	kinds := 0
	for _, item := range strings.Split(spec, ",") {
		name, val, hasVal := strings.Cut(strings.TrimSpace(item), "=")
		n := 1
		if hasVal {
			v, err := strconv.Atoi(val)
			if err != nil || v < 0 {
				return f, fmt.Errorf("fault %q: %q is not a count", name, val)
			}
			n = v
		}
		if name == "percent" {
			if n > 100 {
				return f, fmt.Errorf("percent must be 0-100, got %d", n)
			}
			f.Percent = n
			continue
		}
		known := false
		for _, k := range faultKinds {
			if k.name == name || k.alias != "" && k.alias == name {
				k.set(&f, n)
				known = true
			}
		}
		if !known {
			return f, fmt.Errorf("unknown fault %q (known: %s)", name, faultNames())
		}
		kinds++
	}
	if kinds == 0 {
		percent := f.Percent
		f = defaultFaults
		f.Percent = percent
	}
	return f, nil
}

// faultNames lists the kinds for an error, each once, then the old
// spellings.
func faultNames() string {
	var names, old []string
	for _, k := range faultKinds {
		names = append(names, k.name)
		if k.alias != "" {
			old = append(old, k.alias)
		}
	}
	return strings.Join(names, ", ") + "; old spellings " + strings.Join(old, ", ")
}
