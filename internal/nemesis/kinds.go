package nemesis

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zksim/zksim/internal/faultname"
)

// The faults only a real run has. The client-side ones share the
// simulator's names (package faultname).
const (
	// Expire closes a session by its captured credentials while its
	// client holds the lock (package expire): what a long pause causes,
	// without the wait.
	Expire = "expire"
	// PauseMember stops a member with SIGSTOP, then continues it.
	PauseMember = "pause-member"
	// KillMember kills a member with SIGKILL, then restarts it.
	KillMember = "kill-member"
	// IsolateLeader cuts the leader's links to the other members, then
	// heals them.
	IsolateLeader = "isolate-leader"
	// LagMember holds a follower's stream from its leader, then releases
	// it: its clients read an old tree meanwhile.
	LagMember = "lag-member"
)

// kind is one fault -faults names, as a real run reads it.
type kind struct {
	name   string
	member bool   // injected on a member of a started ensemble
	peers  bool   // acts on the links between members: needs two or more
	doc    string // what it does on real servers
	refuse string // why a real run cannot inject it; "" if it can
}

// kinds is every fault -faults may name with -servers or -ensemble: the
// simulator's kinds, in its order, then the real run's own. The order is
// that of the draws and of the report.
var kinds = []kind{
	{name: faultname.LoseRequest, doc: "the proxy drops a request before the server and cuts the connection: nothing applied, connection loss"},
	{name: faultname.LoseReply, doc: "the proxy forwards a request and cuts the connection before its reply: applied, connection loss (the lost create)"},
	{name: faultname.Disconnect, doc: "the proxy cuts the connection after a reply; the client reconnects, to any server, with its session"},
	{name: faultname.Crash, doc: "the proxy cuts the client off for good and the client stops; its session lingers until it expires"},
	{name: faultname.Pause, doc: "the proxy holds the client's traffic both ways for twice its session timeout: the server expires the session by silence"},
	{name: faultname.Reap, refuse: "a real server's container reaper runs on its own timer (znode.container.checkIntervalMs); a run cannot make it act"},
	{name: faultname.Reorder, refuse: "it breaks ZooKeeper's ordering guarantee, which a real server keeps"},
	{name: faultname.Abandon, refuse: "go-zookeeper keeps its session across reconnects; a real run has no client that gives its session up for a new one"},
	{name: Expire, doc: "the session of a client that has just taken the lock is closed by its captured credentials"},
	{name: PauseMember, member: true, doc: "a member (the leader or a follower, drawn) is stopped with SIGSTOP, then continued"},
	{name: KillMember, member: true, doc: "a member (the leader or a follower, drawn) is killed with SIGKILL, then restarted"},
	{name: IsolateLeader, member: true, peers: true, doc: "the leader's links to the other members (quorum and election) are cut, then healed: the others elect a new leader, the old one stops serving until it rejoins"},
	{name: LagMember, member: true, peers: true, doc: "a follower's stream from the leader is held (nothing forwarded) for 0.5 to 1.5 s, then released: it stays in the quorum, and its clients read an old tree (stale reads) until it catches up"},
}

func lookup(name string) (kind, bool) {
	for _, k := range kinds {
		if k.name == name || slices.Contains(faultname.Aliases(k.name), name) {
			return k, true
		}
	}
	return kind{}, false
}

// Names lists the kinds a real run can inject, in order.
func Names() []string {
	var names []string
	for _, k := range kinds {
		if k.refuse == "" {
			names = append(names, k.name)
		}
	}
	return names
}

// Doc is what the fault called name does on real servers, or why it
// cannot be injected there.
func Doc(name string) string {
	k, ok := lookup(name)
	switch {
	case !ok:
		return ""
	case k.refuse != "":
		return "not on real servers: " + k.refuse
	}
	return k.doc
}

// Faults is how many faults of each kind a real run injects. The zero
// value injects none.
type Faults struct {
	counts map[string]int // by canonical name
}

// Count is how many faults of kind name f asks for.
func (f Faults) Count(name string) int { return f.counts[name] }

// Total is how many faults f asks for in all.
func (f Faults) Total() int {
	n := 0
	for _, c := range f.counts {
		n += c
	}
	return n
}

// String is f in -faults spelling, in the kinds' order: "none" for
// none.
func (f Faults) String() string {
	var items []string
	for _, k := range kinds {
		if n := f.counts[k.name]; n > 0 {
			items = append(items, fmt.Sprintf("%s=%d", k.name, n))
		}
	}
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ",")
}

// CheckMembers refuses member faults when the run controls no members
// (-servers on an ensemble it did not start).
func (f Faults) CheckMembers(have bool) error {
	for _, k := range kinds {
		if k.member && f.counts[k.name] > 0 && !have {
			return fmt.Errorf("%w: %s needs an ensemble the run started (-ensemble N), not -servers", ErrRefused, k.name)
		}
	}
	return nil
}

// CheckPeers refuses the faults on the links between members when the
// run's ensemble has fewer than two (a standalone server has none).
func (f Faults) CheckPeers(members int) error {
	for _, k := range kinds {
		if k.peers && f.counts[k.name] > 0 && members < 2 {
			return fmt.Errorf("%w: %s acts on the links between members: it needs -ensemble 3 (or 2), not %d", ErrRefused, k.name, members)
		}
	}
	return nil
}

// Parse reads -faults for a real run: "none" (or "default", which on
// real servers injects nothing unasked), or a comma list of kind=count
// (a bare kind means 1) in the simulator's spelling. A kind the real run
// cannot inject is refused with the reason; so is percent, since a real
// run draws each fault's moment from the seed rather than a rate.
func Parse(spec string) (Faults, error) {
	f := Faults{counts: map[string]int{}}
	if spec == "none" || spec == "default" {
		return f, nil
	}
	for _, item := range strings.Split(spec, ",") {
		name, val, hasVal := strings.Cut(strings.TrimSpace(item), "=")
		k, n, err := parseItem(name, val, hasVal)
		if err != nil {
			return f, err
		}
		if _, dup := f.counts[k.name]; dup {
			return f, fmt.Errorf("%w: fault %q given twice: name each kind once", ErrSpec, k.name)
		}
		f.counts[k.name] = n
	}
	return f, nil
}

func parseItem(name, val string, hasVal bool) (kind, int, error) {
	if name == "percent" {
		return kind{}, 0, fmt.Errorf("%w: percent: a real run draws each fault's moment from the seed, not a rate", ErrRefused)
	}
	k, ok := lookup(name)
	if !ok {
		return k, 0, fmt.Errorf("%w: unknown fault %q (on real servers: %s)", ErrSpec, name, strings.Join(Names(), ", "))
	}
	if k.refuse != "" {
		return k, 0, fmt.Errorf("%w: %s: %s", ErrRefused, k.name, k.refuse)
	}
	n := 1
	if hasVal {
		v, err := strconv.Atoi(val)
		if err != nil || v < 0 || v > 1<<20 {
			return k, 0, fmt.Errorf("%w: fault %q: %q is not a count", ErrSpec, name, val)
		}
		n = v
	}
	return k, n, nil
}
