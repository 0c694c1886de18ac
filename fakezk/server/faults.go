package server

import (
	"fmt"
	"strings"

	"github.com/zksim/zksim/fakezk"
)

// Match selects requests for a fault rule; every field set must match.
type Match struct {
	// Op is the request's name as fakezk prints it: create, delete,
	// exists, get, set, children, multi or sync ("" any). create covers
	// create, create2 and createContainer; children both getChildren.
	Op string
	// Path is a prefix of the request's path ("" any); a multi matches if
	// any of its ops does.
	Path string
	// Session is the session id (0 any).
	Session int64
}

// ops are the names Match.Op accepts.
var ops = []string{"create", "delete", "exists", "get", "set", "children", "multi", "sync"}

func (m Match) validate() error {
	if m.Op == "" {
		return nil
	}
	for _, o := range ops {
		if o == m.Op {
			return nil
		}
	}
	return fmt.Errorf("server: unknown op %q (known: %s)", m.Op, strings.Join(ops, ", "))
}

func (m Match) String() string {
	var parts []string
	if m.Op != "" {
		parts = append(parts, "op="+m.Op)
	}
	if m.Path != "" {
		parts = append(parts, "path="+m.Path+"*")
	}
	if m.Session != 0 {
		parts = append(parts, fmt.Sprintf("session=%#x", m.Session))
	}
	if len(parts) == 0 {
		return "any request"
	}
	return strings.Join(parts, " ")
}

func (m Match) matches(session int64, req fakezk.Request) bool {
	if m.Session != 0 && m.Session != session {
		return false
	}
	if m.Op != "" && m.Op != opName(req) {
		return false
	}
	if m.Path == "" {
		return true
	}
	for _, p := range fakezk.Paths(req) {
		if strings.HasPrefix(p, m.Path) {
			return true
		}
	}
	return false
}

func opName(req fakezk.Request) string {
	name, _, _ := strings.Cut(req.String(), " ")
	return name
}

// rule is a one-shot fault waiting for its request.
type rule struct {
	match Match
	fault fakezk.Fault
}

// DropReply arranges that the next request matching m is applied and its
// reply lost: the server closes the connection instead of answering (the
// lost create). Rules fire once each, oldest first.
func (s *Server) DropReply(m Match) error { return s.addRule(m, fakezk.LoseReply) }

// DropRequest arranges that the next request matching m is lost before the
// server applies it: the connection closes and nothing changes.
func (s *Server) DropRequest(m Match) error { return s.addRule(m, fakezk.LoseRequest) }

func (s *Server) addRule(m Match, f fakezk.Fault) error {
	if err := m.validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, rule{m, f})
	return nil
}

// Pending lists the rules that have not fired yet, oldest first.
func (s *Server) Pending() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.rules))
	for i, r := range s.rules {
		out[i] = faultName(r.fault) + " " + r.match.String()
	}
	return out
}

func faultName(f fakezk.Fault) string {
	switch f {
	case fakezk.LoseReply:
		return "drop-reply"
	case fakezk.LoseRequest:
		return "drop-request"
	}
	return "deliver"
}

// fate decides what happens to a request: the first matching rule fires
// and is removed; otherwise the interceptor, if any, decides.
func (s *Server) fate(session int64, req fakezk.Request) fakezk.Fault {
	for i, r := range s.rules {
		if r.match.matches(session, req) {
			s.rules = append(s.rules[:i], s.rules[i+1:]...)
			s.logf("%s: %#x %s", faultName(r.fault), session, req)
			return r.fault
		}
	}
	if s.intercept != nil {
		return s.intercept(s.m, session, req)
	}
	return fakezk.Deliver
}
