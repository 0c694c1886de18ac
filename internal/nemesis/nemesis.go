package nemesis

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/expire"
	"github.com/zksim/zksim/internal/faultname"
	"github.com/zksim/zksim/internal/wire"
)

// Members is a started ensemble's members as the run controls them,
// numbered from 0. The ensemble that started them implements it; a run
// on servers it did not start has none, and member faults are refused.
type Members interface {
	Len() int
	Leader(ctx context.Context) (int, error)
	// Mode is member i's srvr Mode: "leader", "follower", ...; "" while
	// it does not serve.
	Mode(i int) string
	Pause(i int) error
	Resume(i int) error
	Kill(i int) error
	Restart(ctx context.Context, i int) error
	// Isolate cuts member i's links to and from the other members until
	// Heal.
	Isolate(i int) error
	Heal(i int) error
	// Lag holds for d what member i receives from its leader (a
	// follower's stream of proposals and commits), then releases it;
	// d = 0 releases it at once. It returns at once.
	Lag(i int, d time.Duration) error
}

// Config configures New.
type Config struct {
	Servers  []string // the real servers' client addresses
	Clients  int      // one proxy each
	Schedule []Fault  // from Draw
	Members  Members  // nil: member faults in Schedule are refused
	// SessionTimeout is what the clients ask for; a pause stalls a client
	// twice the timeout the server granted it, or twice this before any.
	SessionTimeout time.Duration
	// OnCrash is called, without blocking, when client i crashes: the
	// run must stop the client's program.
	OnCrash func(client int)
}

// Injection is one fault as it was injected.
type Injection struct {
	At      time.Duration // since New
	Kind    string
	Client  int   // -1 for a member fault
	Member  int   // -1 for a client fault
	Request int64 // the request it struck (client faults), 0 if none
	What    string
	// End marks the end of a member fault: the member continued,
	// restarted, healed or caught up, or, later, the ensemble served
	// whole again.
	End bool
}

func (in Injection) String() string {
	who := fmt.Sprintf("client %d", in.Client+1)
	if in.Member >= 0 {
		who = fmt.Sprintf("member %d", in.Member+1)
	}
	return fmt.Sprintf("+%.3fs %-14s %s: %s", in.At.Seconds(), in.Kind, who, in.What)
}

// Ends reports whether in is the end of a member fault (End): the
// member continued, restarted, healed or caught up, or, later, the
// ensemble served whole again (the fault's effects end there).
func (in Injection) Ends() bool { return in.End && in.Member >= 0 }

// Nemesis injects a schedule of faults into a real run: client faults
// through one Proxy per client, member faults through Members, one at a
// time. It logs each injection with its time since New.
type Nemesis struct {
	cfg     Config
	start   time.Time
	proxies []*Proxy
	byReq   []map[int64]int // per client: its request -> schedule index
	byTotal map[int64]int   // the run's request -> schedule index (member faults)
	total   atomic.Int64
	members chan int // schedule indices
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	mu      sync.Mutex
	log     []Injection
	fired   map[int]bool     // schedule indices injected
	waiting [][]int          // per client: faults whose moment has come, in order
	struck  map[[2]int64]int // (client, request) -> the fault armed on it
	crashed []int
}

// New starts the clients' proxies; the member faults wait for their
// moments in a goroutine of their own until Close.
func New(cfg Config) (*Nemesis, error) {
	var f Faults
	f.counts = map[string]int{}
	for _, x := range cfg.Schedule {
		f.counts[x.Kind]++
	}
	if err := f.CheckMembers(cfg.Members != nil); err != nil {
		return nil, err
	}
	if cfg.Members != nil {
		if err := f.CheckPeers(cfg.Members.Len()); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := &Nemesis{cfg: cfg, start: time.Now(), byTotal: map[int64]int{}, fired: map[int]bool{},
		waiting: make([][]int, cfg.Clients), struck: map[[2]int64]int{},
		members: make(chan int, len(cfg.Schedule)), ctx: ctx, cancel: cancel}
	n.index()
	for i := range cfg.Clients {
		p, err := NewProxy(ProxyConfig{Servers: cfg.Servers,
			OnRequest: func(r int64, op wire.Op) { n.onRequest(i, r, op) },
			Observe:   func(e Effect) { n.observed(i, e) }})
		if err != nil {
			n.Close()
			return nil, err
		}
		n.proxies = append(n.proxies, p)
	}
	n.wg.Add(1)
	go n.memberFaults()
	return n, nil
}

func (n *Nemesis) index() {
	n.byReq = make([]map[int64]int, n.cfg.Clients)
	for i := range n.byReq {
		n.byReq[i] = map[int64]int{}
	}
	for i, f := range n.cfg.Schedule {
		switch {
		case f.Client >= 0 && f.Client < n.cfg.Clients:
			n.byReq[f.Client][f.At] = i
		case f.Client < 0:
			at := f.At
			for n.taken(at) {
				at++
			}
			n.byTotal[at] = i
		}
	}
}

func (n *Nemesis) taken(at int64) bool {
	_, ok := n.byTotal[at]
	return ok
}

// Dialer is client's go-zookeeper dialer: through its proxy, then inner.
func (n *Nemesis) Dialer(client int, inner zk.Dialer) zk.Dialer {
	return n.proxies[client].Dialer(inner)
}

// Proxy is client's proxy.
func (n *Nemesis) Proxy(client int) *Proxy { return n.proxies[client] }

func (n *Nemesis) onRequest(client int, r int64, op wire.Op) {
	if m, ok := n.byTotal[n.total.Add(1)]; ok {
		n.members <- m // never blocks: room for every member fault
	}
	i, ok := n.due(client, r, op)
	if !ok {
		return
	}
	f, p := n.cfg.Schedule[i], n.proxies[client]
	switch f.Kind {
	case faultname.LoseRequest:
		p.LoseRequest()
	case faultname.LoseReply:
		p.LoseReply()
	case faultname.Disconnect:
		p.DisconnectAfterReply()
	case faultname.Pause:
		d := 2 * n.timeout(client)
		p.Stall(d)
		n.mark(i)
		n.record(Injection{Kind: f.Kind, Client: client, Member: -1, Request: r,
			What: fmt.Sprintf("traffic held both ways for %v from request %d (%s)", d, r, op)})
	case faultname.Crash:
		p.Crash()
		n.mark(i)
		n.crash(client)
		n.record(Injection{Kind: f.Kind, Client: client, Member: -1, Request: r,
			What: fmt.Sprintf("cut off for good before request %d (%s); the client stops, its session lingers", r, op)})
	}
}

// due returns the fault, if any, that strikes client's request r of type
// op: the first of those whose moment has come, if it can strike op. A
// lost request or reply waits for a write: a read lost either way is
// only a disconnect, while a write lost before or after the server is
// the difference a recipe must handle.
func (n *Nemesis) due(client int, r int64, op wire.Op) (int, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if i, ok := n.byReq[client][r]; ok {
		n.waiting[client] = append(n.waiting[client], i)
	}
	q := n.waiting[client]
	if len(q) == 0 {
		return 0, false
	}
	if k := n.cfg.Schedule[q[0]].Kind; (k == faultname.LoseRequest || k == faultname.LoseReply) && !op.Write() {
		return 0, false
	}
	n.waiting[client] = q[1:]
	n.struck[[2]int64{int64(client), r}] = q[0]
	return q[0], true
}

// timeout is the session timeout client's server granted, or the one
// asked before any.
func (n *Nemesis) timeout(client int) time.Duration {
	if s, ok := n.proxies[client].Session(); ok {
		return s.Timeout
	}
	return n.cfg.SessionTimeout
}

func (n *Nemesis) crash(client int) {
	n.mu.Lock()
	n.crashed = append(n.crashed, client)
	n.mu.Unlock()
	if n.cfg.OnCrash != nil {
		n.cfg.OnCrash(client)
	}
}

// observed logs a client fault the proxy has just injected.
func (n *Nemesis) observed(client int, e Effect) {
	what := map[string]string{
		faultname.LoseRequest: "lost before the server (nothing applied); connection cut",
		faultname.LoseReply:   "applied; its reply lost, connection cut",
		faultname.Disconnect:  "connection cut after its reply",
	}[e.Kind]
	n.mu.Lock()
	if i, ok := n.struck[[2]int64{int64(client), e.Request}]; ok {
		n.fired[i] = true
	}
	n.mu.Unlock()
	n.record(Injection{Kind: e.Kind, Client: client, Member: -1, Request: e.Request,
		What: fmt.Sprintf("request %d (%s) to %s %s", e.Request, e.Op, e.Server, what)})
}

func (n *Nemesis) mark(i int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.fired[i] = true
}

// Record logs an injection made outside the nemesis (expire, by the run)
// with the time since New.
func (n *Nemesis) Record(in Injection) { n.record(in) }

func (n *Nemesis) record(in Injection) {
	n.mu.Lock()
	defer n.mu.Unlock()
	in.At = time.Since(n.start)
	n.log = append(n.log, in)
}

// Injections returns what was injected so far, in time order.
func (n *Nemesis) Injections() []Injection {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := slices.Clone(n.log)
	slices.SortStableFunc(out, func(a, b Injection) int { return int(a.At - b.At) })
	return out
}

// Missed returns the scheduled faults that were not injected: their
// client made fewer requests, or a lost reply's connection ended first.
func (n *Nemesis) Missed() []Fault {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []Fault
	for i, f := range n.cfg.Schedule {
		if !n.fired[i] {
			out = append(out, f)
		}
	}
	return out
}

// Requests is how many requests client has sent.
func (n *Nemesis) Requests(client int) int64 { return n.proxies[client].Requests() }

// Expire ends client's current session by its credentials, at the server
// that granted it (not through the proxy, which may be holding its
// traffic), and logs it as an expire fault.
func (n *Nemesis) Expire(ctx context.Context, client int, why string) error {
	cred, ok := n.proxies[client].Session()
	if !ok {
		return fmt.Errorf("%w: client %d", ErrNoSession, client+1)
	}
	if err := expire.Kill(ctx, cred.Addr, cred); err != nil {
		return err
	}
	n.record(Injection{Kind: Expire, Client: client, Member: -1,
		What: fmt.Sprintf("session 0x%x closed at %s%s", cred.SessionID, cred.Addr, why)})
	return nil
}

// EndCrashed ends the sessions of the crashed clients, as their servers
// would once their timeouts passed, so that what the run finds left
// behind is not theirs: call it once the clients are done.
func (n *Nemesis) EndCrashed(ctx context.Context) {
	n.mu.Lock()
	crashed := slices.Clone(n.crashed)
	n.mu.Unlock()
	for _, c := range crashed {
		if cred, ok := n.proxies[c].Session(); ok {
			expire.Kill(ctx, cred.Addr, cred) // already expired is as good
		}
	}
}

// Stop ends the member faults, continuing or restarting at once a member
// left stopped or down, and logs it; the proxies keep forwarding.
// Stopping before the run reports puts the members' return in the log.
func (n *Nemesis) Stop() {
	n.cancel()
	n.wg.Wait()
}

// Close stops the member faults (see Stop) and closes the proxies.
func (n *Nemesis) Close() error {
	n.Stop()
	var err error
	for _, p := range n.proxies {
		if e := p.Close(); e != nil && err == nil {
			err = e
		}
	}
	return err
}
