package netserver

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/faultname"
)

// Match selects requests for a fault rule; every field set must match.
type Match struct {
	// Op is the request's name as fakezk prints it: create, delete,
	// exists, get, set, children, multi or sync ("" any). create covers
	// create, create2 and createContainer; children both getChildren.
	Op string
	// Path is a prefix of the request's path ("" any); a multi matches if
	// any of its ops does. It must be absolute (start with "/"): a
	// request's path always is, so a relative prefix could never match.
	Path string
	// Session is the session id (0 any).
	Session int64
}

// ops are the names Match.Op accepts.
var ops = []string{"create", "delete", "exists", "get", "set", "children", "multi", "sync"}

// ErrNoFault is returned for a fault id that is not armed: it fired its
// last time, was cleared, or never was.
var ErrNoFault = errors.New("netserver: no armed fault")

func (m Match) validate() error {
	if m.Path != "" && !strings.HasPrefix(m.Path, "/") {
		return fmt.Errorf("netserver: path %q is not absolute: it must start with \"/\" (a request's path always does, so it would never match)", m.Path)
	}
	if m.Op == "" {
		return nil
	}
	for _, o := range ops {
		if o == m.Op {
			return nil
		}
	}
	return fmt.Errorf("netserver: unknown op %q (known: %s)", m.Op, strings.Join(ops, ", "))
}

// String is m as a fault spec's arguments (op=create,path=/l/), or "" for
// any request.
func (m Match) String() string {
	var parts []string
	if m.Op != "" {
		parts = append(parts, "op="+m.Op)
	}
	if m.Path != "" {
		parts = append(parts, "path="+m.Path)
	}
	if m.Session != 0 {
		parts = append(parts, fmt.Sprintf("session=%#x", m.Session))
	}
	return strings.Join(parts, ",")
}

func (m Match) matches(session int64, req proto.Request) bool {
	if m.Session != 0 && m.Session != session {
		return false
	}
	if m.Op != "" && m.Op != opName(req) {
		return false
	}
	if m.Path == "" {
		return true
	}
	for _, p := range proto.Paths(req) {
		if strings.HasPrefix(p, m.Path) {
			return true
		}
	}
	return false
}

func opName(req proto.Request) string {
	name, _, _ := strings.Cut(req.String(), " ")
	return name
}

// rule is a fault waiting for its requests: it fires on the next left
// requests that match, then is gone.
type rule struct {
	id    int
	match Match
	fault fakezk.Fault
	left  int
}

// watchDelay is a DelayWatches setting in force.
type watchDelay struct {
	id int
	d  time.Duration
}

// ArmedFault is a fault armed and waiting, as Faults lists it: a rule for
// the next requests that match, or a watch delay in force. Faults that act
// at once (expire, disconnect, abandon) are never armed.
type ArmedFault struct {
	// ID names the fault for ClearFault (and DELETE /faults/{id}); a
	// server never reuses one.
	ID int
	// Kind is lose-reply, lose-request or delay-watches.
	Kind string
	// Match selects the requests a lose-reply or lose-request catches,
	// and Left says how many more it will.
	Match Match
	Left  int
	// Session is the session a delay-watches holds notifications for (0:
	// every session without its own), and Delay for how long.
	Session int64
	Delay   time.Duration
}

// Spec is the fault as an item of a fault spec, in the vocabulary's
// own names: posting it arms the same fault again.
func (a ArmedFault) Spec() string {
	var args []string
	if a.Kind == delayWatches {
		args = append(args, "d="+a.Delay.String())
		if a.Session != 0 {
			args = append(args, fmt.Sprintf("session=%#x", a.Session))
		}
	} else {
		if m := a.Match.String(); m != "" {
			args = append(args, m)
		}
		if a.Left != 1 {
			args = append(args, fmt.Sprintf("count=%d", a.Left))
		}
	}
	if len(args) == 0 {
		return a.Kind
	}
	return a.Kind + ":" + strings.Join(args, ",")
}

// String is the fault's id and spec: "3 lose-reply:op=create,count=2".
func (a ArmedFault) String() string { return fmt.Sprintf("%d %s", a.ID, a.Spec()) }

// LoseReply arranges that the next request matching m is applied and its
// reply lost: the server closes the connection instead of answering (the
// lost create). Rules fire once each, oldest first. It returns the rule's
// id, for ClearFault.
func (s *Server) LoseReply(m Match) (int, error) { return s.addRule(m, fakezk.LoseReply) }

// LoseRequest arranges that the next request matching m is lost before
// the server applies it: the connection closes and nothing changes. It
// returns the rule's id, for ClearFault.
func (s *Server) LoseRequest(m Match) (int, error) { return s.addRule(m, fakezk.LoseRequest) }

func (s *Server) addRule(m Match, f fakezk.Fault) (int, error) {
	if err := m.validate(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.armRule(m, f, 1).ID, nil
}

// armRule adds a rule firing count times, with s.mu held.
func (s *Server) armRule(m Match, f fakezk.Fault, count int) ArmedFault {
	s.lastFault++
	s.rules = append(s.rules, rule{s.lastFault, m, f, count})
	return ArmedFault{ID: s.lastFault, Kind: faultName(f), Match: m, Left: count}
}

// Faults lists the armed faults, oldest first.
func (s *Server) Faults() []ArmedFault {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ArmedFault
	for _, r := range s.rules {
		out = append(out, ArmedFault{ID: r.id, Kind: faultName(r.fault), Match: r.match, Left: r.left})
	}
	for session, wd := range s.delays {
		out = append(out, ArmedFault{ID: wd.id, Kind: delayWatches, Session: session, Delay: wd.d})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ClearFaults disarms every armed fault and returns how many there were.
// Faults already fired stay done: a session expired stays expired.
func (s *Server) ClearFaults() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.rules) + len(s.delays)
	s.rules = nil
	clear(s.delays)
	return n
}

// ClearFault disarms the armed fault id, or returns ErrNoFault.
func (s *Server) ClearFault(id int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range s.rules {
		if r.id == id {
			s.rules = append(s.rules[:i], s.rules[i+1:]...)
			return nil
		}
	}
	for session, wd := range s.delays {
		if wd.id == id {
			delete(s.delays, session)
			return nil
		}
	}
	return fmt.Errorf("%w %d: it fired its last time, was cleared, or never was", ErrNoFault, id)
}

// faultName is a rule's fault in the fault vocabulary.
func faultName(f fakezk.Fault) string {
	switch f {
	case fakezk.LoseReply:
		return faultname.LoseReply
	case fakezk.LoseRequest:
		return faultname.LoseRequest
	}
	return "deliver"
}

// fate decides what happens to a request: the first matching rule fires
// (and is gone once it has fired its count); otherwise the interceptor,
// if any, decides.
func (s *Server) fate(session int64, req proto.Request) fakezk.Fault {
	for i := range s.rules {
		r := &s.rules[i]
		if !r.match.matches(session, req) {
			continue
		}
		f := r.fault
		s.logf("%s (fault %d): %#x %s", faultName(f), r.id, session, req)
		if r.left--; r.left == 0 {
			s.rules = append(s.rules[:i], s.rules[i+1:]...)
		}
		return f
	}
	if s.intercept != nil {
		return s.intercept(s.m, session, req)
	}
	return fakezk.Deliver
}
