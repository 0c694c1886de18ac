package conformance

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/internal/ztree"
	"github.com/zksim/zksim/zkapi"
)

// Runner interprets scripts against one Target. Sessions and watches live
// across Run calls, so a scenario file can be split into blocks.
type Runner struct {
	target     Target
	root       string
	admin      zkapi.Conn
	sess       map[string]zkapi.Conn
	owners     map[int64]string
	watches    []*watchRec
	persistent []*persistentRec
	shown      map[string]zkapi.Session // the last snapshot "history" printed, by label
}

type watchRec struct {
	label string
	sess  string
	w     zkapi.Watch
	done  bool
}

// NewRunner creates the root node (persistent, under an admin session) and
// returns a Runner whose relative paths live below it.
func NewRunner(ctx context.Context, t Target, root string) (*Runner, error) {
	admin, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := admin.Create(ctx, root, nil, zkapi.Persistent); err != nil {
		admin.Close()
		return nil, fmt.Errorf("create root %s: %w", root, err)
	}
	return &Runner{
		target: t, root: root, admin: admin,
		sess:   map[string]zkapi.Conn{},
		owners: map[int64]string{admin.Session().ID: "admin"},
		shown:  map[string]zkapi.Session{},
	}, nil
}

// Close ends every session and removes the root's subtree.
func (r *Runner) Close(ctx context.Context) error {
	for _, l := range r.labels() {
		r.sess[l].Close()
	}
	err := ztree.DeleteTree(ctx, r.admin, r.root)
	if qerr := ztree.DeleteTree(ctx, r.admin, quotaRoot+r.root); !errors.Is(qerr, zkapi.ErrNoNode) {
		err = errors.Join(err, qerr)
	}
	r.admin.Close()
	return err
}

// Run executes a script (one command per line) and returns its transcript
// with zxids replaced by their rank.
func (r *Runner) Run(ctx context.Context, script string) (string, error) {
	var b strings.Builder
	for _, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		res, err := r.line(ctx, line)
		if err != nil {
			return b.String(), fmt.Errorf("%q: %w", line, err)
		}
		b.WriteString(res)
	}
	return normalizeZxids(b.String()), nil
}

var sessionLabel = regexp.MustCompile(`^s[0-9]+$`)

func (r *Runner) line(ctx context.Context, line string) (string, error) {
	toks, err := tokenize(line)
	if err != nil {
		return "", err
	}
	if len(toks) < 2 || !sessionLabel.MatchString(toks[0].s) {
		return "", fmt.Errorf("want \"sN command args\"")
	}
	label, cmd := toks[0].s, toks[1].s
	c, err := r.conn(ctx, label)
	if err != nil {
		return "", err
	}
	a := &args{toks: toks[2:]}
	before := c.Session().Seq
	res, err := r.exec(ctx, label, c, cmd, a)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(res, "err ConnectionLoss") {
		// A real client reconnects in the background and fails requests
		// made meanwhile; wait, so the next line's answer is the server's.
		if err := waitReconnected(ctx, c, before); err != nil {
			return "", err
		}
	}
	events, err := r.events(ctx)
	if err != nil {
		return "", err
	}
	return line + " -> " + res + "\n" + events, nil
}

// waitReconnected waits until c has been disconnected and connected
// again since its session stood at seq. The reply that said
// ConnectionLoss may come before the client has noticed its link is
// gone, while its session still says Connected: a request sent then
// goes down with the old link (seen under load on a busy CI machine).
func waitReconnected(ctx context.Context, c zkapi.Conn, seq uint64) error {
	for s := c.Session(); s.State != zkapi.StateConnected || s.Seq < seq+2; {
		var err error
		if s, err = c.WaitSession(ctx, s.Seq); err != nil {
			return fmt.Errorf("waiting to reconnect after connection loss: %w", err)
		}
	}
	return nil
}

func (r *Runner) conn(ctx context.Context, label string) (zkapi.Conn, error) {
	if c := r.sess[label]; c != nil {
		return c, nil
	}
	c, err := r.target.Connect(ctx)
	if err != nil {
		return nil, err
	}
	r.sess[label] = c
	r.owners[c.Session().ID] = label
	r.shown[label] = c.Session()
	return c, nil
}

func (r *Runner) labels() []string {
	ls := make([]string, 0, len(r.sess))
	for l := range r.sess {
		ls = append(ls, l)
	}
	sort.Strings(ls)
	return ls
}

func (r *Runner) exec(ctx context.Context, label string, c zkapi.Conn, cmd string, a *args) (string, error) {
	switch cmd {
	case "create":
		path := r.abs(a.next("path"))
		data, mode, acl := r.dataAndMode(a, path)
		if err := a.done(); err != nil {
			return "", err
		}
		p, err := create(ctx, c, path, data, mode, acl)
		return r.result(err, func() string { return r.rel(p) }), nil
	case "delete":
		path := r.abs(a.next("path"))
		v := a.version()
		if err := a.done(); err != nil {
			return "", err
		}
		return r.result(c.Delete(ctx, path, v), nil), nil
	case "exists":
		return r.exists(ctx, label, c, a)
	case "get":
		return r.get(ctx, label, c, a)
	case "set":
		path := r.abs(a.next("path"))
		data := r.data(a, proto.FrameSize(proto.SetData{Path: path}))
		v := a.version()
		if err := a.done(); err != nil {
			return "", err
		}
		st, err := c.Set(ctx, path, data, v)
		return r.result(err, func() string { return r.stat(st) }), nil
	case "children":
		return r.children(ctx, label, c, a)
	case "times":
		return r.times(ctx, c, a)
	case "sleep":
		d, err := time.ParseDuration(a.next("duration"))
		if err != nil {
			return "", err
		}
		time.Sleep(d)
		return "slept", a.done()
	case "multi":
		return r.multi(ctx, c, a)
	case "addauth", "getacl", "setacl":
		ac, ok := c.(zkapi.ACLConn)
		if !ok {
			return "", fmt.Errorf("%s: the target's Conn %T has no ACLs", cmd, c)
		}
		return r.aclCommand(ctx, ac, cmd, a)
	case "sync":
		path := r.abs(a.next("path"))
		if err := a.done(); err != nil {
			return "", err
		}
		return r.result(c.Sync(ctx, path), nil), nil
	case "close":
		c.Close()
		delete(r.sess, label)
		delete(r.shown, label)
		return "closed", a.done()
	case "expire":
		if err := r.target.Expire(ctx, c); err != nil {
			return "", err
		}
		r.owners[c.Session().ID] = label
		return "expired", a.done()
	case "disconnect":
		if err := r.target.Disconnect(ctx, c); err != nil {
			return "", err
		}
		return "disconnected", a.done()
	case "reconnect":
		if err := r.target.Reconnect(ctx, c); err != nil {
			return "", err
		}
		r.owners[c.Session().ID] = label
		return c.Session().State.String(), a.done()
	case "session":
		return c.Session().State.String(), a.done()
	case "addwatch":
		return r.addPersistent(ctx, label, c, a)
	case "removewatch":
		return r.removePersistent(ctx, a)
	case "history":
		h, err := r.history(ctx, label, c)
		if err != nil {
			return "", err
		}
		return h, a.done()
	}
	return "", fmt.Errorf("unknown command %q", cmd)
}

// history lists the session snapshots c reported since the last history
// of label (or its connect), up to the current one: each state, with
// "(new)" where the session ID changed, or "none". Stepping through them
// with WaitSession shows whether a Conn skips a transition, such as the
// Expired between a partition and the new session.
func (r *Runner) history(ctx context.Context, label string, c zkapi.Conn) (string, error) {
	last, cur := r.shown[label], c.Session()
	var parts []string
	for last.Seq < cur.Seq {
		s, err := c.WaitSession(ctx, last.Seq)
		if err != nil {
			return "", fmt.Errorf("history after %v: %w", last, err)
		}
		part := s.State.String()
		if s.ID != last.ID {
			part += "(new)"
		}
		parts = append(parts, part)
		last = s
	}
	r.shown[label] = last
	if len(parts) == 0 {
		return "none", nil
	}
	return strings.Join(parts, " "), nil
}

// dataAndMode reads a create's optional data, mode and "acl=LIST"
// (proto.ParseACL's form; nil without it).
func (r *Runner) dataAndMode(a *args, path string) ([]byte, zkapi.CreateMode, []zkapi.ACL) {
	var data []byte
	if len(a.toks) > 0 && (a.toks[0].quoted || strings.HasPrefix(a.toks[0].s, "maxdata")) {
		data = r.data(a, proto.FrameSize(proto.Create{Path: path}))
	}
	mode := zkapi.Persistent
	if len(a.toks) > 0 && !strings.HasPrefix(a.toks[0].s, "acl=") {
		m, err := parseMode(a.next("mode"))
		if err != nil {
			a.fail("%v", err)
		}
		mode = m
	}
	var acl []zkapi.ACL
	if len(a.toks) > 0 {
		if spec, ok := strings.CutPrefix(a.toks[0].s, "acl="); ok {
			a.next("acl")
			acl = parseACL(a, spec)
		}
	}
	return data, mode, acl
}

// parseMode reads a create mode by name, or as mode=N, a number that
// need not name one (to record what a server does with it).
func parseMode(tok string) (zkapi.CreateMode, error) {
	n, ok := strings.CutPrefix(tok, "mode=")
	if !ok {
		return proto.ParseCreateMode(tok)
	}
	v, err := strconv.Atoi(n)
	return zkapi.CreateMode(v), err
}

// data reads a quoted data argument, or "maxdata[+N]": data that makes a
// request whose frame without data is frame bytes exactly jute.maxbuffer
// long (plus N bytes).
func (r *Runner) data(a *args, frame int) []byte {
	if len(a.toks) > 0 && a.toks[0].quoted {
		return []byte(a.next("data"))
	}
	tok := a.next("data")
	extra := 0
	if rest, ok := strings.CutPrefix(tok, "maxdata+"); ok {
		n, err := strconv.Atoi(rest)
		if err != nil {
			a.fail("bad %q", tok)
		}
		extra = n
	} else if tok != "maxdata" {
		a.fail("bad %q", tok)
	}
	return []byte(strings.Repeat("x", machine.DefaultMaxFrame-frame+extra))
}

func (r *Runner) exists(ctx context.Context, label string, c zkapi.Conn, a *args) (string, error) {
	path := r.abs(a.next("path"))
	watch := a.flag("watch")
	if err := a.done(); err != nil {
		return "", err
	}
	var (
		st  zkapi.Stat
		ok  bool
		w   zkapi.Watch
		err error
	)
	if watch {
		st, ok, w, err = c.ExistsW(ctx, path)
	} else {
		st, ok, err = c.Exists(ctx, path)
	}
	res := r.result(err, func() string {
		if !ok {
			return "missing"
		}
		return r.stat(st)
	})
	return res + r.addWatch(label, w), nil
}

func (r *Runner) get(ctx context.Context, label string, c zkapi.Conn, a *args) (string, error) {
	path := r.abs(a.next("path"))
	watch := a.flag("watch")
	if err := a.done(); err != nil {
		return "", err
	}
	var (
		data []byte
		st   zkapi.Stat
		w    zkapi.Watch
		err  error
	)
	if watch {
		data, st, w, err = c.GetW(ctx, path)
	} else {
		data, st, err = c.Get(ctx, path)
	}
	res := r.result(err, func() string { return quoteData(data) + " " + r.stat(st) })
	return res + r.addWatch(label, w), nil
}

func (r *Runner) children(ctx context.Context, label string, c zkapi.Conn, a *args) (string, error) {
	path := r.abs(a.next("path"))
	watch := a.flag("watch")
	order := a.flag("order")
	if err := a.done(); err != nil {
		return "", err
	}
	var (
		kids []string
		st   zkapi.Stat
		w    zkapi.Watch
		err  error
	)
	if watch {
		kids, st, w, err = c.ChildrenW(ctx, path)
	} else {
		kids, st, err = c.Children(ctx, path)
	}
	list := joinSorted
	if order {
		list = listed
	} else {
		sort.Strings(kids)
	}
	res := r.result(err, func() string { return list(kids) + " " + r.stat(st) })
	return res + r.addWatch(label, w), nil
}

// listed prints names in the order the server gave them, and a nil list
// as nil: a leaf's children are an empty list on the real server.
func listed(names []string) string {
	if names == nil {
		return "nil"
	}
	return joinSorted(names)
}

// times prints a node's ctime against the runner's clock ("now" within
// 5 s, as a server on this host stamps it) and its mtime as whole
// seconds after its ctime.
func (r *Runner) times(ctx context.Context, c zkapi.Conn, a *args) (string, error) {
	path := r.abs(a.next("path"))
	if err := a.done(); err != nil {
		return "", err
	}
	st, ok, err := c.Exists(ctx, path)
	if err == nil && !ok {
		err = zkapi.ErrNoNode
	}
	return r.result(err, func() string {
		ctime := "now"
		if d := time.Now().UnixMilli() - st.Ctime; d > 5000 || d < -5000 {
			ctime = fmt.Sprintf("%+ds", -d/1000)
		}
		return fmt.Sprintf("ctime=%s mtime=ctime+%ds", ctime, (st.Mtime-st.Ctime)/1000)
	}), nil
}

func (r *Runner) multi(ctx context.Context, c zkapi.Conn, a *args) (string, error) {
	var ops []zkapi.Op
	for _, toks := range splitMulti(a.toks) {
		oa := &args{toks: toks}
		op := r.multiOp(oa)
		if err := oa.done(); err != nil {
			return "", err
		}
		ops = append(ops, op)
	}
	res, err := c.Multi(ctx, ops...)
	if err != nil && res != nil {
		// A multi the server refused reports each op's error; one the
		// client refused, none.
		parts := make([]string, len(res))
		for i, x := range res {
			parts[i] = zkapi.Name(x.Err)
		}
		return r.result(err, nil) + " [" + strings.Join(parts, "; ") + "]", nil
	}
	return r.result(err, func() string {
		parts := make([]string, len(res))
		for i, x := range res {
			switch ops[i].(type) {
			case zkapi.CreateOp:
				parts[i] = r.rel(x.Path)
			case zkapi.SetOp:
				parts[i] = r.stat(x.Stat)
			default:
				parts[i] = "ok"
			}
		}
		return "ok [" + strings.Join(parts, "; ") + "]"
	}), nil
}

func (r *Runner) multiOp(a *args) zkapi.Op {
	switch kind := a.next("multi op"); kind {
	case "create":
		path := r.abs(a.next("path"))
		data, mode, acl := r.dataAndMode(a, path)
		return zkapi.CreateOp{Path: path, Data: data, Mode: mode, ACL: acl}
	case "delete":
		return zkapi.DeleteOp{Path: r.abs(a.next("path")), Version: a.version()}
	case "set":
		path := r.abs(a.next("path"))
		data := r.data(a, proto.FrameSize(proto.SetData{Path: path}))
		return zkapi.SetOp{Path: path, Data: data, Version: a.version()}
	case "check":
		return zkapi.CheckOp{Path: r.abs(a.next("path")), Version: a.version()}
	default:
		a.fail("unknown multi op %q", kind)
		return nil
	}
}

func (r *Runner) addWatch(label string, w zkapi.Watch) string {
	if w == nil {
		return ""
	}
	rec := &watchRec{label: fmt.Sprintf("w%d", len(r.watches)+1), sess: label, w: w}
	r.watches = append(r.watches, rec)
	return " " + rec.label
}

// events settles the target and reports every watch that fired since the
// last call, in label order.
func (r *Runner) events(ctx context.Context) (string, error) {
	var conns []zkapi.Conn
	seen := map[string]bool{}
	settle := func(sess string, done bool) {
		c := r.sess[sess]
		if !done && c != nil && !seen[sess] && c.Session().State == zkapi.StateConnected {
			seen[sess] = true
			conns = append(conns, c)
		}
	}
	for _, w := range r.watches {
		settle(w.sess, w.done)
	}
	for _, p := range r.persistent {
		settle(p.sess, p.done)
	}
	if err := r.target.Settle(ctx, conns); err != nil {
		return "", err
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	var b strings.Builder
	for _, w := range r.watches {
		if w.done {
			continue
		}
		ev, err := w.w.Wait(done)
		if err != nil {
			continue
		}
		w.done = true
		fmt.Fprintf(&b, "  %s <- %s\n", w.label, r.event(ev))
	}
	for _, p := range r.persistent {
		r.drain(done, p, &b)
	}
	return b.String(), nil
}

func (r *Runner) event(ev zkapi.Event) string {
	s := ev.Type.String() + " " + r.rel(ev.Path)
	if ev.Err != nil {
		s += " (" + zkapi.Name(ev.Err) + ")"
	}
	return s
}

func (r *Runner) result(err error, ok func() string) string {
	if err != nil {
		return "err " + zkapi.Name(err)
	}
	if ok == nil {
		return "ok"
	}
	return ok()
}

// quotaRoot is where ZooKeeper keeps quotas: a quota on /a/b lives
// under /zookeeper/quota/a/b.
const quotaRoot = "/zookeeper/quota"

func (r *Runner) abs(p string) string {
	if a, ok := strings.CutPrefix(p, "!"); ok {
		return a
	}
	if q, ok := strings.CutPrefix(p, "%"); ok {
		return quotaRoot + r.abs(q)
	}
	if p == "/" {
		return r.root
	}
	return r.root + p
}

func (r *Runner) rel(p string) string {
	if p == r.root {
		return "/"
	}
	if rest, ok := strings.CutPrefix(p, r.root+"/"); ok {
		return "/" + rest
	}
	if q, ok := strings.CutPrefix(p, quotaRoot); ok && strings.HasPrefix(q, r.root) {
		return "%" + r.rel(q)
	}
	return "!" + p
}

// stat prints every Stat field but the times; zxids as markers for
// normalizeZxids, the owner as a session label.
func (r *Runner) stat(st zkapi.Stat) string {
	return fmt.Sprintf("{c=%s m=%s p=%s v=%d cv=%d av=%d eph=%s dl=%d nc=%d}",
		zx(st.Czxid), zx(st.Mzxid), zx(st.Pzxid), st.Version, st.Cversion, st.Aversion,
		r.owner(st.EphemeralOwner), st.DataLength, st.NumChildren)
}

func (r *Runner) owner(id int64) string {
	switch {
	case id == 0:
		return "-"
	case id == -1<<63:
		return "container"
	case r.owners[id] != "":
		return r.owners[id]
	}
	return "?"
}

func zx(z int64) string { return fmt.Sprintf("\x00%d\x00", z) }

var zxidMarker = regexp.MustCompile("\x00(-?[0-9]+)\x00")

// normalizeZxids replaces each zxid by its rank among those in s (z1 is
// the smallest), the only form in which zxids of two servers compare.
func normalizeZxids(s string) string {
	seen := map[int64]bool{}
	var zs []int64
	for _, m := range zxidMarker.FindAllStringSubmatch(s, -1) {
		z, _ := strconv.ParseInt(m[1], 10, 64)
		if !seen[z] {
			seen[z] = true
			zs = append(zs, z)
		}
	}
	sort.Slice(zs, func(i, j int) bool { return zs[i] < zs[j] })
	rank := map[string]string{}
	for i, z := range zs {
		rank[strconv.FormatInt(z, 10)] = fmt.Sprintf("z%d", i+1)
	}
	return zxidMarker.ReplaceAllStringFunc(s, func(m string) string {
		return rank[strings.Trim(m, "\x00")]
	})
}
