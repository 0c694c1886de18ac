package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/zkapi"
)

// A fault spec is the text form of the fault methods, shared by the
// -faults flag of zksim serve and the control interface: items separated
// by ';', each a kind with optional key=value arguments after ':',
// separated by ','.
//
//	drop-reply[:op=OP,path=PREFIX,session=ID,count=N]    DropReply, N times
//	drop-request[:op=OP,path=PREFIX,session=ID,count=N]  DropRequest, N times
//	delay-watches:d=DURATION[,session=ID]                DelayWatches
//	expire:session=ID                                    Expire
//	disconnect:session=ID                                Disconnect
//	abandon:session=ID                                   Abandon
//
// IDs are decimal or 0x-prefixed hex; durations are Go's (250ms, 2s).
const FaultSpecHelp = `fault spec: items separated by ';', each KIND[:key=value,...]
  drop-reply[:op=OP,path=PREFIX,session=ID,count=N]    apply the next matching request, lose its reply
  drop-request[:op=OP,path=PREFIX,session=ID,count=N]  lose the next matching request before it is applied
  delay-watches:d=DURATION[,session=ID]                hold watch notifications (and what follows them) for DURATION
  expire:session=ID                                    expire a session now
  disconnect:session=ID                                close a session's connection (the session lives on)
  abandon:session=ID                                   make the client give its session up for a new one (the old one lives until it times out)
OP is one of create, delete, exists, get, set, children, multi, sync; PATH a path prefix.`

// action is one parsed item of a fault spec, applied with s.mu held.
type action struct {
	text  string
	check func(s *Server) error // preconditions, before anything is applied
	apply func(s *Server)
}

// ApplyFaults parses spec and applies every item, or none: a syntax error
// or an item that cannot apply (an unknown session) changes nothing.
func (s *Server) ApplyFaults(spec string) error {
	acts, err := parseSpec(spec)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range acts {
		if a.check != nil {
			if err := a.check(s); err != nil {
				return fmt.Errorf("%s: %w", a.text, err)
			}
		}
	}
	for _, a := range acts {
		a.apply(s)
	}
	s.deliver()
	return nil
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
	kind, rest, _ := strings.Cut(item, ":")
	args, err := parseArgs(rest)
	if err != nil {
		return action{}, err
	}
	a := action{text: item}
	switch kind {
	case "drop-reply", "drop-request":
		return ruleAction(a, kind, args)
	case "delay-watches":
		return delayAction(a, args)
	case "expire", "disconnect", "abandon":
		return sessionAction(a, kind, args)
	}
	return a, fmt.Errorf("unknown kind %q (known: drop-reply, drop-request, delay-watches, expire, disconnect, abandon)", kind)
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
	return ParseSessionID(v)
}

// ParseSessionID reads a session id in decimal or 0x-prefixed hex.
func ParseSessionID(v string) (int64, error) {
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
	if kind == "drop-request" {
		fault = fakezk.LoseRequest
	}
	a.apply = func(s *Server) {
		for range count {
			s.rules = append(s.rules, rule{m, fault})
		}
	}
	return a, nil
}

func delayAction(a action, args specArgs) (action, error) {
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
	a.apply = func(s *Server) { s.setDelay(id, d) }
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
		a.apply = func(s *Server) { s.expireByRequest(id) }
	case "abandon":
		a.check = func(s *Server) error { return s.checkLive(id) }
		a.apply = func(s *Server) { s.abandon(id) }
	default:
		a.check = func(s *Server) error { return s.checkConnected(id) }
		a.apply = func(s *Server) { s.disconnect(id) }
	}
	return a, nil
}

// Handler is the control interface over HTTP, for teams whose tests are
// not in Go:
//
//	POST /faults     body: a fault spec (see FaultSpecHelp); 400 if it is bad
//	GET  /faults     the drop rules still waiting for their request
//	GET  /sessions   one line per live session: id, timeout, client address
//	GET  /tree       every znode, one per line, with its data length and owner
//	GET  /members    one line per member: index, client address, state
//	                 (leader, follower, standalone, looking or stopped)
//	POST /members/{i}/stop   stop member i as a killed server (see StopMember)
//	POST /members/{i}/start  start it again on the same port; 409 if the
//	                 member is already in that state, 404 if there is none
//
// Replies are plain text.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /faults", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		if err == nil {
			err = s.ApplyFaults(string(body))
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /faults", func(w http.ResponseWriter, r *http.Request) {
		for _, p := range s.Pending() {
			fmt.Fprintln(w, p)
		}
	})
	mux.HandleFunc("GET /sessions", func(w http.ResponseWriter, r *http.Request) {
		for _, si := range s.Sessions() {
			remote := si.Remote
			if remote == "" {
				remote = "-"
			}
			fmt.Fprintf(w, "%#x timeout=%dms client=%s\n", si.ID, si.TimeoutMs, remote)
		}
	})
	mux.HandleFunc("GET /tree", func(w http.ResponseWriter, r *http.Request) {
		s.Inspect(func(m *fakezk.Machine) { writeTree(w, m) })
	})
	mux.HandleFunc("GET /members", func(w http.ResponseWriter, r *http.Request) {
		for _, mb := range s.Members() {
			addr := mb.Addr
			if addr == "" {
				addr = "-"
			}
			fmt.Fprintf(w, "%d %s %s\n", mb.Index, addr, mb.State)
		}
	})
	mux.HandleFunc("POST /members/{i}/stop", s.memberHandler(s.StopMember))
	mux.HandleFunc("POST /members/{i}/start", s.memberHandler(s.StartMember))
	return mux
}

// writeTree writes one line per znode, / first, then depth first.
func writeTree(w io.Writer, m *fakezk.Machine) {
	line := func(p string, st zkapi.Stat) {
		owner := "-"
		if st.EphemeralOwner != 0 {
			owner = fmt.Sprintf("%#x", st.EphemeralOwner)
		}
		fmt.Fprintf(w, "%s dl=%d v=%d eph=%s\n", p, st.DataLength, st.Version, owner)
	}
	_, root, _ := m.Node("/")
	line("/", root)
	walk(m, "/", line)
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
