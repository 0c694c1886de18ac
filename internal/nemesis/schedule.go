package nemesis

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Fault is one fault of a schedule: what, on whom, and the request that
// triggers it.
type Fault struct {
	Kind   string
	Client int // the client whose proxy injects it; -1 for a member fault
	// Member is the member a member fault strikes, from 0; -1 means
	// whichever leads when it strikes. -1 for a client fault.
	Member int
	// At is the request that triggers the fault: the client's At-th for a
	// client fault (the cut after its reply, the stall or crash from it;
	// a lost request or reply strikes the first write from it on), the
	// run's At-th over all clients for a member fault.
	At int64
	// For is how long a paused member stays stopped, a killed one down,
	// an isolated leader cut off or a follower lagging, before it is
	// continued, restarted, healed or released.
	For time.Duration
}

func (f Fault) String() string {
	if f.Client >= 0 {
		return fmt.Sprintf("%s client %d at its request %d", f.Kind, f.Client+1, f.At)
	}
	who := "the leader"
	if f.Member >= 0 {
		who = fmt.Sprintf("member %d", f.Member+1)
	}
	return fmt.Sprintf("%s %s for %v at the run's request %d", f.Kind, who, f.For, f.At)
}

// Plan is what a schedule is drawn over.
type Plan struct {
	Seed    uint64
	Clients int
	Members int // 0 when the run controls none
	// Requests is about how many requests each client makes in the run:
	// each fault's moment is drawn among the first Requests.
	Requests int64
}

// seedStream keeps the schedule's draws apart from the workload's, which
// use the same seed.
const seedStream = 0x6e656d65736973 // "nemesis"

// Draw draws from p.Seed a schedule of the faults f asks for (but
// expire, which strikes holders, not moments): for each fault, in the
// kinds' order, its client or member and its moment; for a member fault
// also how long (1 to 4 s; a lag 0.5 to 1.5 s, see lagFor). Two faults
// of one client never share a request. The same f and p give the same
// schedule.
func Draw(f Faults, p Plan) []Fault {
	r := rand.New(rand.NewPCG(p.Seed, seedStream))
	reqs := max(1, p.Requests)
	used := map[[2]int64]bool{}
	var out []Fault
	for _, k := range kinds {
		for range f.counts[k.name] {
			switch {
			case k.name == Expire || k.refuse != "":
			case k.member:
				out = append(out, drawMember(r, k.name, p, reqs))
			case p.Clients > 0:
				c := r.IntN(p.Clients)
				at := 1 + r.Int64N(reqs)
				for used[[2]int64{int64(c), at}] {
					at++
				}
				used[[2]int64{int64(c), at}] = true
				out = append(out, Fault{Kind: k.name, Client: c, Member: -1, At: at})
			}
		}
	}
	return out
}

func drawMember(r *rand.Rand, name string, p Plan, reqs int64) Fault {
	m := -1
	if r.IntN(2) == 1 && p.Members > 0 {
		m = r.IntN(p.Members)
	}
	at := 1 + r.Int64N(reqs*int64(max(1, p.Clients)))
	d := time.Second + time.Duration(r.IntN(3000))*time.Millisecond
	switch name {
	case IsolateLeader:
		m = -1 // whichever leads when it strikes
	case LagMember:
		d = lagFor(d)
	}
	return Fault{Kind: name, Client: -1, Member: m, At: at, For: d}
}

// lagFor maps a member fault's drawn 1 to 4 s onto a lag's 0.5 to 1.5 s
// (same draws, so the other kinds' schedules are unchanged). A follower
// that hears nothing from its leader for syncLimit x tickTime (2.5 s on
// an ensemble the run starts) leaves the quorum, and the leader pings
// every 250 ms: 1.5 s lags without leaving, with a second of slack for
// a busy machine.
func lagFor(d time.Duration) time.Duration {
	return (500*time.Millisecond + (d-time.Second)/3).Round(time.Millisecond)
}
