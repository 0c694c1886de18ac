package simcli

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/sim"
)

// faultKinds is every fault -faults accepts: sim's table (whose names
// zksim serve shares, old spellings included), the legal kinds first.
var faultKinds = legalFirst(simhook.FaultKinds())

func legalFirst(kinds []simhook.FaultKind) []simhook.FaultKind {
	slices.SortStableFunc(kinds, func(a, b simhook.FaultKind) int {
		switch {
		case a.Illegal == b.Illegal:
			return 0
		case b.Illegal:
			return -1
		}
		return 1
	})
	return kinds
}

// defaultFaults is every legal fault, a few of each, at 10% of steps.
var defaultFaults = sim.DefaultFaults()

// oneOfEach is the exhaustive strategy's default: one fault of every
// legal kind.
var oneOfEach = sim.OneOfEach()

// parseFaults reads -faults: "default", "none", or a comma list of
// kind=count (a bare kind means 1), with percent=P for the rate. A list
// that names no kind (percent=50) keeps the default kinds.
//
// A kind (or percent) named twice is refused, not the last one kept:
// crash=1,crash=2 is a typo or a merge of two specs, and either count
// would be a guess. So is an empty spec, which a shell variable left
// unset gives: "default" or "none" says what is meant.
func parseFaults(spec string) (sim.Faults, error) {
	switch spec {
	case "default", "all":
		return defaultFaults, nil
	case "none":
		return sim.Faults{None: true}, nil
	case "":
		return sim.Faults{}, errEmptyFaults
	}
	f := sim.Faults{Percent: 10}
	kinds := 0
	seen := map[string]string{} // the name given first, by the canonical one
	for _, item := range strings.Split(spec, ",") {
		name, val, hasVal := strings.Cut(strings.TrimSpace(item), "=")
		if err := once(seen, name); err != nil {
			return f, err
		}
		n := 1
		if hasVal {
			v, err := strconv.Atoi(val)
			if err != nil || v < 0 {
				return f, fmt.Errorf("fault %q: %q is not a count", name, val)
			}
			if v > math.MaxInt32 {
				return f, fmt.Errorf("fault %q: %d is more than %d", name, v, math.MaxInt32)
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
			if k.Name == name || slices.Contains(k.Aliases, name) {
				*k.Budget(&f) = n
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

// errEmptyFaults refuses -faults "".
var errEmptyFaults = errors.New(`-faults is empty: give "default", "none" or a list of kind=count`)

// once records the fault kind (or "percent") name stands for in seen,
// and refuses it if seen has it already, by this name or another
// spelling.
func once(seen map[string]string, name string) error {
	canon := name
	for _, k := range faultKinds {
		if k.Name == name || slices.Contains(k.Aliases, name) {
			canon = k.Name
		}
	}
	if first, ok := seen[canon]; ok {
		if first == name {
			return fmt.Errorf("fault %q given twice: name each kind once", name)
		}
		return fmt.Errorf("fault %q given twice (as %q and %q): name each kind once", canon, first, name)
	}
	seen[canon] = name
	return nil
}

// faultNames lists the kinds for an error, each once, then the old
// spellings.
func faultNames() string {
	var names, old []string
	for _, k := range faultKinds {
		names = append(names, k.Name)
		old = append(old, k.Aliases...)
	}
	return strings.Join(names, ", ") + "; old spellings " + strings.Join(old, ", ")
}
