package netserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/faultname"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/zkapi"
)

// A fault spec is the text form of the fault methods, shared by the
// -faults flag of zksim serve and the control interface: items separated
// by ';', each a kind with optional key=value arguments after ':',
// separated by ','. The kinds are faultKinds; FaultSpecHelp lists them.
// IDs are decimal or 0x-prefixed hex; durations are Go's (250ms, 2s).

// faultKind is one word of the fault spec. A fault that zksim run's
// -faults (package sim) can inject too has the name and old spellings of
// internal/faultname (lose-reply, not drop-reply); only the serve-only
// kinds (delay-watches, expire) are named here.
type faultKind struct {
	name  string
	args  string // what may follow the name
	doc   string
	parse func(a action, kind string, args specArgs) (action, error)
}

// aliases are k's old spellings, still accepted.
// delayWatches is the serve-only fault that holds a session's watch events.
const delayWatches = "delay-watches"

func (k faultKind) aliases() []string { return faultname.Aliases(k.name) }

// faultKinds is the fault spec's vocabulary, in FaultSpecHelp's order.
var faultKinds = []faultKind{
	{faultname.LoseReply, "[:op=OP,path=/PREFIX,session=ID,count=N]",
		"apply the next matching request, lose its reply (N times)", ruleAction},
	{faultname.LoseRequest, "[:op=OP,path=/PREFIX,session=ID,count=N]",
		"lose the next matching request before it is applied (N times)", ruleAction},
	{delayWatches, ":d=DURATION[,session=ID]",
		"hold watch notifications (and what follows them) for DURATION; d=0 lifts it", delayAction},
	{"expire", ":session=ID", "expire a session now", sessionAction},
	{faultname.Disconnect, ":session=ID", "close a session's connection (the session lives on)", sessionAction},
	{faultname.Abandon, ":session=ID",
		"make the client give its session up for a new one (the old one lives until it times out)", sessionAction},
}

// FaultSpecHelp describes the fault spec for usage texts.
var FaultSpecHelp = faultSpecHelp()

func faultSpecHelp() string {
	var b strings.Builder
	b.WriteString("fault spec: items separated by ';', each KIND[:key=value,...]\n")
	width := 0
	for _, k := range faultKinds {
		width = max(width, len(k.name+k.args))
	}
	var old []string
	for _, k := range faultKinds {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, k.name+k.args, k.doc)
		for _, a := range k.aliases() {
			old = append(old, a+" for "+k.name)
		}
	}
	fmt.Fprintf(&b, "Old spellings, still accepted: %s.\n", strings.Join(old, ", "))
	b.WriteString("OP is one of " + strings.Join(ops, ", ") + `; /PREFIX an absolute path prefix (it starts with "/").`)
	return b.String()
}

// lookupKind finds a kind by its name or an old spelling.
func lookupKind(name string) (faultKind, bool) {
	for _, k := range faultKinds {
		if k.name == name || slices.Contains(k.aliases(), name) {
			return k, true
		}
	}
	return faultKind{}, false
}

// kindNames lists the vocabulary for an error: each kind once, then the
// old spellings.
func kindNames() string {
	var names, old []string
	for _, k := range faultKinds {
		names = append(names, k.name)
		old = append(old, k.aliases()...)
	}
	return strings.Join(names, ", ") + "; old spellings " + strings.Join(old, ", ")
}

// action is one parsed item of a fault spec, applied with s.mu held.
type action struct {
	text  string
	check func(s *Server) error // preconditions, before anything is applied
	apply func(s *Server) []ArmedFault
}

// ApplyFaults parses spec and applies every item, or none: a syntax error
// or an item that cannot apply (an unknown session) changes nothing.
// Faults lists what it armed.
func (s *Server) ApplyFaults(spec string) error {
	_, err := s.applyFaults(spec)
	return err
}

// applyFaults is ApplyFaults, returning the faults it armed.
func (s *Server) applyFaults(spec string) ([]ArmedFault, error) {
	acts, err := parseSpec(spec)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range acts {
		if a.check != nil {
			if err := a.check(s); err != nil {
				return nil, fmt.Errorf("%s: %w", a.text, err)
			}
		}
	}
	var armed []ArmedFault
	for _, a := range acts {
		armed = append(armed, a.apply(s)...)
	}
	s.deliver()
	return armed, nil
}

func parseSpec(spec string) ([]action, error) {
	var acts []action
	for _, item := range strings.Split(spec, ";") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		a, err := parseItem(item)
		if err != nil {
			return nil, fmt.Errorf("fault %q: %w", item, err)
		}
		acts = append(acts, a)
	}
	if len(acts) == 0 {
		return nil, fmt.Errorf("empty fault spec\n%s", FaultSpecHelp)
	}
	return acts, nil
}

func parseItem(item string) (action, error) {
	name, rest, _ := strings.Cut(item, ":")
	args, err := parseArgs(rest)
	if err != nil {
		return action{}, err
	}
	k, ok := lookupKind(name)
	if !ok {
		return action{}, fmt.Errorf("unknown kind %q (known: %s)", name, kindNames())
	}
	return k.parse(action{text: item}, k.name, args)
}

type specArgs map[string]string

func parseArgs(s string) (specArgs, error) {
	args := specArgs{}
	if strings.TrimSpace(s) == "" {
		return args, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("argument %q is not key=value", kv)
		}
		if _, dup := args[k]; dup {
			return nil, fmt.Errorf("argument %q given twice", k)
		}
		args[k] = v
	}
	return args, nil
}

// take removes and returns an argument; unknown ones left over are errors.
func (a specArgs) take(k string) (string, bool) {
	v, ok := a[k]
	delete(a, k)
	return v, ok
}

func (a specArgs) rest() error {
	if len(a) == 0 {
		return nil
	}
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return fmt.Errorf("unknown argument %q", keys[0])
}

func (a specArgs) session(required bool) (int64, error) {
	v, ok := a.take("session")
	if !ok {
		if required {
			return 0, fmt.Errorf("missing session=ID")
		}
		return 0, nil
	}
	return parseSessionID(v)
}

// parseSessionID reads a session id in decimal or 0x-prefixed hex.
func parseSessionID(v string) (int64, error) {
	id, err := strconv.ParseInt(v, 0, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("session %q is not a session id (decimal or 0x hex)", v)
	}
	return id, nil
}

func ruleAction(a action, kind string, args specArgs) (action, error) {
	var m Match
	var err error
	m.Op, _ = args.take("op")
	m.Path, _ = args.take("path")
	if m.Session, err = args.session(false); err != nil {
		return a, err
	}
	count := 1
	if v, ok := args.take("count"); ok {
		if count, err = strconv.Atoi(v); err != nil || count < 1 {
			return a, fmt.Errorf("count %q is not a positive number", v)
		}
	}
	if err := args.rest(); err != nil {
		return a, err
	}
	if err := m.validate(); err != nil {
		return a, err
	}
	fault := fakezk.LoseReply
	if kind == faultname.LoseRequest {
		fault = fakezk.LoseRequest
	}
	a.apply = func(s *Server) []ArmedFault { return []ArmedFault{s.armRule(m, fault, count)} }
	return a, nil
}

func delayAction(a action, _ string, args specArgs) (action, error) {
	v, ok := args.take("d")
	if !ok {
		return a, fmt.Errorf("missing d=DURATION")
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return a, fmt.Errorf("d %q is not a duration (like 250ms)", v)
	}
	id, err := args.session(false)
	if err != nil {
		return a, err
	}
	if err := args.rest(); err != nil {
		return a, err
	}
	a.apply = func(s *Server) []ArmedFault {
		s.setDelay(id, d)
		if d == 0 {
			return nil
		}
		return []ArmedFault{{ID: s.lastFault, Kind: delayWatches, Session: id, Delay: d}}
	}
	return a, nil
}

func sessionAction(a action, kind string, args specArgs) (action, error) {
	id, err := args.session(true)
	if err != nil {
		return a, err
	}
	if err := args.rest(); err != nil {
		return a, err
	}
	switch kind {
	case "expire":
		a.check = func(s *Server) error { return s.checkLive(id) }
		a.apply = func(s *Server) []ArmedFault { s.expireByRequest(id); return nil }
	case faultname.Abandon:
		a.check = func(s *Server) error { return s.checkLive(id) }
		a.apply = func(s *Server) []ArmedFault { s.abandon(id); return nil }
	default:
		a.check = func(s *Server) error { return s.checkConnected(id) }
		a.apply = func(s *Server) []ArmedFault { s.disconnect(id); return nil }
	}
	return a, nil
}

// Handler is the control interface over HTTP, for teams whose tests are
// not in Go. GET / lists its endpoints (endpoints below), as text or, for
// Accept: application/json, as JSON; replies are plain text. Every
// request must carry "Authorization: Bearer TOKEN" (NewToken makes one;
// an empty token refuses everything), name the server by IP address or
// localhost in its Host header, and come from no foreign Origin
// (guard.go): 401 or 403 otherwise.
func (s *Server) Handler(token string) http.Handler {
	return guard{token: token, next: s.routes()}
}

// routes serves the endpoints, unguarded.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	eps := s.endpoints()
	for _, ep := range eps {
		pattern := ep.method + " " + ep.path
		if ep.path == "/" {
			pattern += "{$}" // the index only, not every path
		}
		mux.HandleFunc(pattern, ep.serve)
	}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { writeIndex(w, r, eps) })
	return mux
}

// endpoint is one route of the control interface, with the line GET /
// gives it.
type endpoint struct {
	method, path, doc string
	serve             http.HandlerFunc
}

func (s *Server) endpoints() []endpoint {
	return []endpoint{
		{"POST", "/faults", "arm the faults of the fault spec in the body; 400 with the reason if it is bad (nothing armed)", s.postFaults},
		{"GET", "/faults", "the armed faults, oldest first, one per line: ID SPEC", s.getFaults},
		{"DELETE", "/faults", "disarm every armed fault", s.deleteFaults},
		{"DELETE", "/faults/{id}", "disarm fault ID; 404 if it is not armed (it fired, was cleared, or never was)", s.deleteFault},
		{"GET", "/sessions", "one line per live session: id, timeout, client address", s.getSessions},
		{"GET", "/tree", "every znode a client without credentials (or with the digest credentials of each X-Zksim-Digest: user:password header; the super user's see all) may list (getChildren's READ check), one per line, with its data length, version and owner", s.getTree},
		{"GET", "/members", "one line per member: index, client address, state (leader, follower, standalone, looking, stopped)", s.getMembers},
		{"POST", "/members/{i}/stop", "stop member i as a killed server; 409 if it is stopped, 404 if there is none", s.memberHandler(s.StopMember)},
		{"POST", "/members/{i}/start", "start member i again on the same port; 409 if it runs, 404 if there is none", s.memberHandler(s.StartMember)},
	}
}

// writeIndex answers GET /: the endpoints, GET / itself first.
func writeIndex(w http.ResponseWriter, r *http.Request, eps []endpoint) {
	eps = append([]endpoint{{method: "GET", path: "/", doc: "this list (JSON with Accept: application/json)"}}, eps...)
	if wantsJSON(r) {
		type entry struct {
			Method      string `json:"method"`
			Path        string `json:"path"`
			Description string `json:"description"`
		}
		list := make([]entry, len(eps))
		for i, ep := range eps {
			list[i] = entry{ep.method, ep.path, ep.doc}
		}
		writeJSON(w, list)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, "zksim serve control interface (the fault spec follows the endpoints)")
	width := 0
	for _, ep := range eps {
		width = max(width, len(ep.path))
	}
	for _, ep := range eps {
		fmt.Fprintf(w, "%-6s %-*s  %s\n", ep.method, width, ep.path, ep.doc)
	}
	fmt.Fprintf(w, "\n%s\n", FaultSpecHelp)
}

func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // a client gone away is nothing to report
}

// postFaults arms a fault spec and says what it armed, one line each.
func (s *Server) postFaults(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	var armed []ArmedFault
	if err == nil {
		armed, err = s.applyFaults(string(body))
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fmt.Fprintln(w, "ok")
	for _, a := range armed {
		fmt.Fprintln(w, "armed", a)
	}
}

func (s *Server) getFaults(w http.ResponseWriter, r *http.Request) {
	faults := s.Faults()
	if wantsJSON(r) {
		type entry struct {
			ID   int    `json:"id"`
			Kind string `json:"kind"`
			Spec string `json:"spec"`
		}
		list := make([]entry, len(faults))
		for i, a := range faults {
			list[i] = entry{a.ID, a.Kind, a.Spec()}
		}
		writeJSON(w, list)
		return
	}
	for _, a := range faults {
		fmt.Fprintln(w, a)
	}
}

func (s *Server) deleteFaults(w http.ResponseWriter, _ *http.Request) {
	fmt.Fprintf(w, "cleared %d\n", s.ClearFaults())
}

func (s *Server) deleteFault(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id < 1 {
		http.Error(w, fmt.Sprintf("fault id %q is not a positive number (GET /faults lists the armed ones)", r.PathValue("id")), http.StatusBadRequest)
		return
	}
	if err := s.ClearFault(id); err != nil {
		http.Error(w, err.Error()+" (GET /faults lists the armed ones)", http.StatusNotFound)
		return
	}
	fmt.Fprintf(w, "cleared %d\n", id)
}

func (s *Server) getSessions(w http.ResponseWriter, _ *http.Request) {
	for _, si := range s.Sessions() {
		remote := si.Remote
		if remote == "" {
			remote = "-"
		}
		fmt.Fprintf(w, "%#x timeout=%dms client=%s\n", si.ID, si.TimeoutMs, remote)
	}
}

// digestHeader carries a digest credential ("user:password") for /tree,
// once per credential; a header, not the URL, which logs and proxies keep.
const digestHeader = "X-Zksim-Digest"

func (s *Server) getTree(w http.ResponseWriter, r *http.Request) {
	creds := r.Header.Values(digestHeader)
	s.Inspect(func(m *machine.Machine) { writeTree(w, m, creds) })
}

func (s *Server) getMembers(w http.ResponseWriter, _ *http.Request) {
	for _, mb := range s.Members() {
		addr := mb.Addr
		if addr == "" {
			addr = "-"
		}
		fmt.Fprintf(w, "%d %s %s\n", mb.Index, addr, mb.State)
	}
}

// writeTree writes one line per znode, / first, then depth first, as a
// client holding the digest credentials creds (none: a client without
// credentials) would find them: the children of a node whose ACL grants
// those identities no READ are left out, as getChildren refuses to list
// them (exists, which needs no permission, shows a listed node's stat).
// The super user's credentials (-super-digest) see the whole tree.
func writeTree(w io.Writer, m *machine.Machine, creds []string) {
	line := func(p string, st zkapi.Stat) {
		owner := "-"
		if st.EphemeralOwner != 0 {
			owner = fmt.Sprintf("%#x", st.EphemeralOwner)
		}
		fmt.Fprintf(w, "%s dl=%d v=%d eph=%s\n", p, st.DataLength, st.Version, owner)
	}
	_, root, _ := m.Node("/")
	line("/", root)
	can := m.DigestCan(creds)
	walkInto(m, "/", func(p string) bool { return can(p, zkapi.PermRead) }, line)
}

// memberHandler serves POST /members/{i}/stop and /start through op.
func (s *Server) memberHandler(op func(int) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(r.PathValue("i"))
		if err != nil {
			http.Error(w, fmt.Sprintf("member %q is not a number", r.PathValue("i")), http.StatusBadRequest)
			return
		}
		switch err := op(i); {
		case errors.Is(err, ErrNoMember):
			http.Error(w, err.Error(), http.StatusNotFound)
		case errors.Is(err, ErrMemberState):
			http.Error(w, err.Error(), http.StatusConflict)
		case err != nil:
			http.Error(w, err.Error(), http.StatusInternalServerError)
		default:
			fmt.Fprintln(w, "ok")
		}
	}
}
