package machine_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/cockroachdb/datadriven"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// TestMachine_Interaction drives a Machine directly from the files under
// testdata/interaction, as raft's interaction tests drive its core: each
// step's reply (with its zxid and Stat), the notifications it queued,
// session by session, and what time, followers and the reaper did. Every
// expectation is ZooKeeper 3.8's answer, each file citing the rules of
// docs/zk-semantics.md it checks. Regenerate with -rewrite, then read
// every changed line against those rules before accepting it.
// Every line also checks the fingerprint (see checkFingerprint).
func TestMachine_Interaction(t *testing.T) { interaction(t, 1) }

// The Machine keeps its nodes' hashes between fingerprints and rehashes
// only the nodes changed since (internal/machine's replica.touch): a
// change it missed would make two states hash alike, and a search skip
// one of them. The interaction files make every kind of change (creates
// and deletes, sets, ACLs, multis that commit and that roll back,
// quotas, containers and TTL nodes reaped, sessions closed and expired,
// followers catching up, sequence counters set): run again, fingerprinted
// every few lines (several lines' changes pile up between two), the kept
// fingerprint must be the one hashed from scratch.
func TestFingerprint_KeptIsFresh(t *testing.T) {
	for _, every := range []int{2, 3, 5} {
		t.Run(strconv.Itoa(every), func(t *testing.T) { interaction(t, every) })
	}
	// Quotas, which no interaction file sets (the conformance scenario
	// quota checks them against ZooKeeper): their stats node changes
	// with every write under the quota's path, a multi's undone too.
	for _, every := range []int{1, 2, 3} {
		m, err := machine.NewMachine(machine.Config{TickMillis: 1000, SortChildren: true, Followers: 1})
		if err != nil {
			t.Fatal(err)
		}
		d := &driver{m: m, ids: map[string]int64{}, names: map[int64]string{}, every: every}
		out := d.run(t, quotaScript)
		if !strings.Contains(out, `data="count=3,bytes=4"`) {
			t.Fatalf("the quota did not count:\n%s", out)
		}
	}
}

// quotaScript counts a quota's subtree in its stats node, through
// creates, sets, deletes and multis, one of them undone.
const quotaScript = `
session a
a create /zookeeper/quota/q
a create /zookeeper/quota/q/zookeeper_limits data=count=10
a create /q
a create /zookeeper/quota/q/zookeeper_stats
a create /q/x data=abc
a set /q/x data=abcdef
catchup 1
a multi create /q/y data=zz; delete /q/none
a multi create /q/z data=1; set /q data=22
a delete /q/x
a create /q/w data=a
catchup 1
node /zookeeper/quota/q/zookeeper_stats
`

// interaction runs the interaction files, checking the fingerprint every
// so many lines.
func interaction(t *testing.T, every int) {
	datadriven.Walk(t, "testdata/interaction", func(t *testing.T, path string) {
		var d *driver
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "new":
				var err error
				d, err = newDriver(td)
				if err != nil {
					t.Fatal(err)
				}
				d.every = every
				return "ok\n"
			case "run":
				if d == nil {
					t.Fatal("run before new")
				}
				return d.run(t, td.Input)
			}
			t.Fatalf("unknown directive %q", td.Cmd)
			return ""
		})
	})
}

// driver is one Machine under test and the names of its sessions.
type driver struct {
	m     *machine.Machine
	ids   map[string]int64
	names map[int64]string
	out   strings.Builder
	every int // lines between two fingerprint checks
	lines int // lines run
}

// newDriver reads the directive "new [followers=N] [tick=MS] [seed=N]
// [overflow=wrap] [extended] [reap=K] [shuffle]": children sorted unless
// shuffle, ticks of 1000 ms by default, no reaper unless reap.
func newDriver(td *datadriven.TestData) (*driver, error) {
	cfg := machine.Config{TickMillis: 1000, SortChildren: true}
	for _, a := range td.CmdArgs {
		var v string
		if len(a.Vals) > 0 {
			v = a.Vals[0]
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		switch a.Key {
		case "followers":
			cfg.Followers = int(n)
		case "tick":
			cfg.TickMillis = n
		case "seed":
			cfg.Seed = uint64(n)
		case "overflow":
			cfg.Overflow = machine.OverflowPin
			if v == "wrap" {
				cfg.Overflow = machine.OverflowWrap
			}
		case "extended":
			cfg.ExtendedTypes = true
		case "reap":
			cfg.ContainerCheckTicks = int(n)
		case "shuffle":
			cfg.SortChildren = false
		default:
			return nil, fmt.Errorf("new: unknown argument %q", a.Key)
		}
	}
	m, err := machine.NewMachine(cfg)
	if err != nil {
		return nil, err
	}
	return &driver{m: m, ids: map[string]int64{}, names: map[int64]string{}}, nil
}

// run runs one command a line and returns what they printed.
func (d *driver) run(t *testing.T, input string) string {
	d.out.Reset()
	for line := range strings.SplitSeq(input, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := d.command(line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		d.deliver()
		if d.lines++; d.lines%d.every == 0 {
			d.checkFingerprint(t, line)
		}
	}
	return d.out.String()
}

// checkFingerprint fails t unless the fingerprint from the Machine's
// kept node hashes is the one hashed from scratch, and the count of
// detached sessions it keeps for Due is the true one.
func (d *driver) checkFingerprint(t *testing.T, line string) {
	t.Helper()
	if kept, fresh := d.m.Fingerprint(), d.m.FingerprintFresh(); kept != fresh {
		t.Fatalf("after %q: kept fingerprint %x, fresh %x", line, kept, fresh)
	}
	if kept, counted := machine.Detached(d.m); kept != counted {
		t.Fatalf("after %q: %d sessions detached, kept as %d", line, counted, kept)
	}
}

// printf prints a line with every character that is not graphic
// escaped, as Go would quote it: the files stay plain text.
func (d *driver) printf(format string, args ...any) {
	for _, r := range fmt.Sprintf(format, args...) {
		switch {
		case r == '\n' || unicode.IsGraphic(r):
			d.out.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&d.out, `\x%02x`, r)
		default:
			fmt.Fprintf(&d.out, `\u%04x`, r)
		}
	}
}

// command runs one line: a global command, or "NAME REQUEST ..." for a
// request of session NAME.
func (d *driver) command(line string) error {
	f := strings.Fields(line)
	if id, ok := d.ids[f[0]]; ok && len(f) > 1 {
		req, err := parseRequest(f[1:])
		if err != nil {
			return err
		}
		d.printf("%s: %s -> %s\n", f[0], req, d.named(d.m.Do(id, req).String()))
		return nil
	}
	args := parseArgs(f[1:])
	switch f[0] {
	case "session":
		return d.session(f[1], args)
	case "tick":
		for range max(1, args.int("n", 1)) {
			d.printf("tick t=%d expired=%v\n", d.m.Now()+d.m.Config().TickMillis, d.nameAll(d.m.Tick()))
		}
	case "close":
		return d.close(f[1])
	case "expire":
		d.m.Expire(d.ids[f[1]])
		d.printf("expire %s z=%d alive=%v\n", f[1], d.m.Zxid(), d.m.Alive(d.ids[f[1]]))
	case "detach":
		d.m.Detach(d.ids[f[1]])
		d.printf("detach %s\n", f[1])
	case "attach":
		replica, z := args.int("replica", 0), args.int("z", 0)
		err := d.m.Attach(d.ids[f[1]], replica, int64(z))
		d.printf("attach %s replica=%d z=%d -> %s\n", f[1], replica, z, zkapi.Name(err))
	case "catchup":
		i, _ := strconv.Atoi(f[1])
		d.m.CatchUp(i, int64(args.int("z", int(d.m.Zxid()))))
		d.printf("catchup %d z=%d\n", i, d.m.ReplicaZxid(i))
	case "reap":
		z := d.m.Zxid()
		d.m.ReapContainers()
		d.printf("reap deleted=%d z=%d\n", d.m.Zxid()-z, d.m.Zxid())
	case "seq":
		n, _ := strconv.ParseInt(f[2], 10, 32)
		return d.m.SetSequence(f[1], int32(n))
	case "node":
		data, st, ok := d.m.Node(f[1])
		d.printf("node %s exists=%v data=%q %s\n", f[1], ok, data, d.named(fmt.Sprintf("%+v", st)))
	case "ls":
		d.printf("ls %s %v\n", f[1], d.m.Children(f[1]))
	case "zxids":
		d.zxids()
	case "watches":
		d.watches(f[1:])
	default:
		return fmt.Errorf("unknown command %q", f[0])
	}
	return nil
}

func (d *driver) session(name string, args args) error {
	info, err := d.m.CreateSession(args.int("replica", 0), int64(args.int("timeout", 4000)))
	if err != nil {
		return err
	}
	d.ids[name], d.names[info.ID] = info.ID, name
	d.printf("session %s id=%#x timeout=%dms z=%d\n", name, info.ID, info.TimeoutMs, d.m.Zxid())
	return nil
}

// close prints what CloseSession returns: the closing session's own last
// notifications, which it receives before the close is acknowledged.
func (d *driver) close(name string) error {
	own := d.m.CloseSession(d.ids[name])
	d.printf("close %s z=%d\n", name, d.m.Zxid())
	for _, n := range own {
		d.printf("  %s <- %s\n", name, n)
	}
	return nil
}

func (d *driver) zxids() {
	d.printf("zxid=%d", d.m.Zxid())
	for i := 0; i <= d.m.Config().Followers; i++ {
		d.printf(" r%d=%d", i, d.m.ReplicaZxid(i))
	}
	d.printf("\n")
}

// watches prints the watchers of each path at the leader, and how many
// watches are held.
func (d *driver) watches(paths []string) {
	for _, p := range paths {
		data, child := d.m.Watchers(0, p)
		d.printf("watchers %s data=%v child=%v\n", p, d.nameAll(data), d.nameAll(child))
	}
	d.printf("held=%d\n", d.m.HeldWatches())
}

// deliver prints the notifications the last command queued, session by
// session in increasing id order, each queue oldest first.
func (d *driver) deliver() {
	for _, id := range d.m.TakeNotified() {
		for _, n := range d.m.TakeNotifications(id) {
			d.printf("  %s <- %s\n", d.names[id], n)
		}
	}
}

// named replaces session ids in eph= fields by the sessions' names.
func (d *driver) named(s string) string {
	for id, name := range d.names {
		s = strings.ReplaceAll(s, fmt.Sprintf("=%#x", id), "="+name)
	}
	return s
}

func (d *driver) nameAll(ids []int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = d.names[id]
	}
	return out
}

// args are a command's key=value arguments and bare flags.
type args map[string]string

func parseArgs(f []string) args {
	a := args{}
	for _, kv := range f {
		k, v, _ := strings.Cut(kv, "=")
		a[k] = v
	}
	return a
}

func (a args) int(key string, def int) int {
	v, ok := a[key]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return def
	}
	return n
}

func (a args) has(key string) bool { _, ok := a[key]; return ok }

// version is the v= argument, -1 (any) if absent.
func (a args) version() int32 { return int32(a.int("v", -1)) }

// data is the data= argument; absent is no data.
func (a args) data() []byte {
	v, ok := a["data"]
	if !ok {
		return nil
	}
	return []byte(v)
}

// parseRequest reads "VERB PATH ARGS...", the requests' String forms
// where they are short (a path may be a Go-quoted string): create PATH [data=] [mode=] [ttl=] [acl=],
// delete PATH [v=], exists|get|children PATH [watch], set PATH [data=]
// [v=], sync PATH, addwatch PATH [recursive], removewatches PATH
// data|children|any, getacl PATH, setacl PATH ACL [v=], addauth SCHEME
// DATA, setwatches z=N [data=a,b] [exist=] [child=], ping, and
// multi OP; OP; ... with ops create, delete, set and check.
func parseRequest(f []string) (proto.Request, error) {
	if f[0] == "multi" {
		return parseMulti(strings.Join(f[1:], " "))
	}
	if f[0] == "ping" {
		return proto.Ping{}, nil
	}
	if len(f) < 2 {
		return nil, fmt.Errorf("%s needs a path", f[0])
	}
	p, a := f[1], parseArgs(f[2:])
	if strings.HasPrefix(p, `"`) {
		var err error
		if p, err = strconv.Unquote(p); err != nil {
			return nil, fmt.Errorf("path %s: %w", f[1], err)
		}
	}
	switch f[0] {
	case "create":
		return parseCreate(p, a)
	case "delete":
		return proto.Delete{Path: p, Version: a.version()}, nil
	case "exists":
		return proto.Exists{Path: p, Watch: a.has("watch")}, nil
	case "get":
		return proto.GetData{Path: p, Watch: a.has("watch")}, nil
	case "children":
		return proto.GetChildren{Path: p, Watch: a.has("watch")}, nil
	case "set":
		return proto.SetData{Path: p, Data: a.data(), Version: a.version()}, nil
	case "sync":
		return proto.Sync{Path: p}, nil
	case "addwatch":
		return proto.AddWatch{Path: p, Recursive: a.has("recursive")}, nil
	case "removewatches":
		return parseRemoveWatches(p, f[2])
	case "getacl":
		return proto.GetACL{Path: p}, nil
	case "setacl":
		acl, err := proto.ParseACL(f[2])
		return proto.SetACL{Path: p, ACL: acl, Version: parseArgs(f[3:]).version()}, err
	case "addauth":
		return proto.AddAuth{Scheme: p, Data: []byte(f[2])}, nil
	case "setwatches":
		return parseSetWatches(parseArgs(f[1:]))
	}
	return nil, fmt.Errorf("unknown request %q", f[0])
}

func parseCreate(p string, a args) (proto.Request, error) {
	mode := zkapi.Persistent
	if v, ok := a["mode"]; ok {
		var err error
		if mode, err = proto.ParseCreateMode(v); err != nil {
			return nil, err
		}
	}
	var acl []zkapi.ACL
	if v, ok := a["acl"]; ok {
		var err error
		if acl, err = proto.ParseACL(v); err != nil {
			return nil, err
		}
	}
	return proto.Create{Path: p, Data: a.data(), Mode: mode, TTLMillis: int64(a.int("ttl", 0)), ACL: acl}, nil
}

func parseRemoveWatches(p, typ string) (proto.Request, error) {
	for _, t := range []proto.WatcherType{proto.WatcherChildren, proto.WatcherData, proto.WatcherAny} {
		if strings.EqualFold(t.String(), typ) {
			return proto.RemoveWatches{Path: p, Type: t}, nil
		}
	}
	return nil, fmt.Errorf("unknown watcher type %q", typ)
}

func parseSetWatches(a args) (proto.Request, error) {
	list := func(k string) []string {
		if a[k] == "" {
			return nil
		}
		return strings.Split(a[k], ",")
	}
	return proto.SetWatches{
		RelativeZxid: int64(a.int("z", 0)), Data: list("data"), Exist: list("exist"), Child: list("child"),
		Persistent: list("persistent"), PersistentRecursive: list("recursive"),
	}, nil
}

// parseMulti reads "OP; OP; ...".
func parseMulti(s string) (proto.Request, error) {
	var ops []zkapi.Op
	for part := range strings.SplitSeq(s, ";") {
		f := strings.Fields(part)
		if len(f) < 2 {
			return nil, fmt.Errorf("multi op %q needs a path", part)
		}
		a := parseArgs(f[2:])
		switch f[0] {
		case "create":
			r, err := parseCreate(f[1], a)
			if err != nil {
				return nil, err
			}
			c := r.(proto.Create)
			ops = append(ops, zkapi.CreateOp{Path: c.Path, Data: c.Data, Mode: c.Mode, TTLMillis: c.TTLMillis, ACL: c.ACL})
		case "delete":
			ops = append(ops, zkapi.DeleteOp{Path: f[1], Version: a.version()})
		case "set":
			ops = append(ops, zkapi.SetOp{Path: f[1], Data: a.data(), Version: a.version()})
		case "check":
			ops = append(ops, zkapi.CheckOp{Path: f[1], Version: a.version()})
		default:
			return nil, fmt.Errorf("unknown multi op %q", f[0])
		}
	}
	return proto.Multi{Ops: ops}, nil
}
