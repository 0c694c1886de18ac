package sim

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/zksim/zksim/zkapi"
)

// coverageJSON is Coverage's JSON form (zksim run -json, -summary): every
// field always present, the counts keyed by name with only the nonzero
// ones, and Never. Its field names are stable: fields may be added,
// never renamed or removed.
type coverageJSON struct {
	Runs      int                       `json:"runs"`
	Clients   int                       `json:"client_runs"`
	Requests  map[string]int            `json:"requests"`
	Waits     map[string]int            `json:"waits"`
	Faults    map[string]map[string]int `json:"faults"`
	Reaps     int                       `json:"reaps"`
	Reaped    int                       `json:"containers_reaped"`
	Deadlines map[string]int            `json:"deadlines"`
	Sessions  map[string]sessionJSON    `json:"sessions"`
	Expired   int                       `json:"expired_by_server"`
	Watches   map[string]int            `json:"watches"`
	Rewatched int                       `json:"watches_reregistered"`
	Ended     int                       `json:"watches_ended"`
	LostNotes int                       `json:"notifications_lost"`
	Never     []string                  `json:"never"`
}

type sessionJSON struct {
	Times   int `json:"times"`
	Clients int `json:"clients"`
}

// errCoverageJSON is wrapped by every reason a coverage object cannot be
// read back.
var errCoverageJSON = errors.New("sim: not a coverage object")

// MarshalJSON implements json.Marshaler.
func (c Coverage) MarshalJSON() ([]byte, error) {
	j := coverageJSON{Runs: c.runs, Clients: c.clientRuns, Requests: named(c.did[:firstWait], 0),
		Waits: named(c.did[firstWait:idle], firstWait), Faults: map[string]map[string]int{},
		Reaps: c.reaps, Reaped: c.reaped, Deadlines: named(c.deadlines[:], 0), Sessions: map[string]sessionJSON{},
		Expired: c.expired, Watches: map[string]int{}, Rewatched: c.rewatched, Ended: c.ended, LostNotes: c.lostNotes,
		Never: c.never()}
	for k := evLoseRequest; k < numKinds; k++ {
		if sum(c.faultsOf(k)[:]) > 0 {
			j.Faults[k.String()] = named(c.faultsOf(k)[:], 0)
		}
	}
	for e := range numSessionEvents {
		if c.sessions[e] > 0 {
			j.Sessions[e.String()] = sessionJSON{c.sessions[e], c.clients[e]}
		}
	}
	for i, n := range c.watches {
		if n > 0 {
			j.Watches[zkapi.EventType(i+1).String()] = n
		}
	}
	return json.Marshal(j)
}

// named is the nonzero counts of ns by activity name, from first.
func named(ns []int, first activity) map[string]int {
	m := map[string]int{}
	for i, n := range ns {
		if n > 0 {
			m[(first + activity(i)).String()] = n
		}
	}
	return m
}

// UnmarshalJSON implements json.Unmarshaler: it reads what MarshalJSON
// wrote (its "never" list is derived, and ignored), so that merge can add shards'
// coverage up.
func (c *Coverage) UnmarshalJSON(b []byte) error {
	var j coverageJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = Coverage{runs: j.Runs, clientRuns: j.Clients, reaps: j.Reaps, reaped: j.Reaped, expired: j.Expired,
		rewatched: j.Rewatched, ended: j.Ended, lostNotes: j.LostNotes}
	errs := []error{unname(c.did[:], j.Requests, "request"), unname(c.did[:], j.Waits, "wait"),
		unname(c.deadlines[:], j.Deadlines, "deadline")}
	for name, m := range j.Faults {
		k, ok := kindNamed(name)
		if !ok {
			return fmt.Errorf("%w: fault %q", errCoverageJSON, name)
		}
		errs = append(errs, unname(c.faultsOf(k)[:], m, name))
	}
	for name, s := range j.Sessions {
		e, ok := index(sessionNames[:], name)
		if !ok {
			return fmt.Errorf("%w: session state %q", errCoverageJSON, name)
		}
		c.sessions[e], c.clients[e] = s.Times, s.Clients
	}
	for name, n := range j.Watches {
		i, ok := watchNamed(name)
		if !ok {
			return fmt.Errorf("%w: watch event %q", errCoverageJSON, name)
		}
		c.watches[i] = n
	}
	return errors.Join(errs...)
}

// unname adds the counts of m, keyed by activity name, into ns.
func unname(ns []int, m map[string]int, what string) error {
	for name, n := range m {
		a, ok := index(activityNames[:], name)
		if !ok {
			return fmt.Errorf("%w: %s on %q", errCoverageJSON, what, name)
		}
		ns[a] += n
	}
	return nil
}

func index(names []string, name string) (int, bool) {
	for i, n := range names {
		if n == name {
			return i, true
		}
	}
	return 0, false
}

func kindNamed(name string) (evKind, bool) {
	i, ok := index(kindNames[:], name)
	return evKind(i), ok && evKind(i).isFault()
}

func watchNamed(name string) (int, bool) {
	for i := range numWatchEvents {
		if zkapi.EventType(i+1).String() == name {
			return i, true
		}
	}
	return 0, false
}
