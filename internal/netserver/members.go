package netserver

import (
	"errors"
	"fmt"
	"net"
	"sort"
)

// The members of a served ensemble: replica 0 and one per follower, each
// on its own listener. A member can be stopped (a killed server: its
// clients' connections close and its port refuses connections) and
// started again on the same port, as Curator's TestingCluster and
// scripts/zk.sh kill/restart do with real servers. The Machine is the
// ensemble's replicated state, so it lives on whatever the members do;
// what stopping changes is who serves, measured on a real 3.8.0 ensemble
// of three (scripts/zk.sh start DIR 3, kill, restart):
//
//   - Stopping a follower closes only its own clients' connections; they
//     fail over to another member and resume their sessions.
//   - Stopping the leader makes every other member drop its clients too,
//     while they elect a new leader (the real election took about a
//     second; the fake's is instant: the lowest running member becomes
//     leader). Sessions survive: the new leader gives every session a
//     fresh timeout (Machine.RenewSessions).
//   - With fewer than a majority running there is no quorum: every
//     running member drops its clients, still accepts TCP connections but
//     closes each without answering its connect request (a client sees
//     connected, then disconnected), and answers four-letter words with
//     "This ZooKeeper instance is not currently serving requests" (except
//     ruok: imok, isro: null, envi). No session expires meanwhile: the
//     server's clock stops ticking the Machine, so virtual time pauses,
//     as no leader's session tracker runs. When a majority is back a
//     leader is elected and every session gets a fresh timeout; a session
//     of 4 s survived 9 s without quorum on the real ensemble.
//
// The Machine's replica 0 applies every write whoever is leader: electing
// another member changes who answers srvr's Mode and who drops clients,
// not where writes go. With Config.FollowerLag an elected follower's
// sessions still read up to a tick behind.
//
// A standalone server (no followers) is an ensemble of one: stopping it
// loses quorum, and starting it again resumes every session with a fresh
// timeout, as a real standalone server restarted on its data directory
// does.

// member is one server of the ensemble, under s.mu.
type member struct {
	addr    net.Addr     // where it listens; nil until it is first served
	l       net.Listener // the current listener, nil while stopped
	stopped bool
}

// MemberInfo describes one member of the ensemble.
type MemberInfo struct {
	Index int
	// Addr is the client address, "" if the member was never served.
	Addr string
	// State is "leader", "follower", "standalone", "stopped", or
	// "looking" for a running member while there is no quorum.
	State string
}

var (
	// ErrNoMember is returned for a member index outside the ensemble.
	ErrNoMember = errors.New("netserver: no such member")
	// ErrMemberState is returned for stopping a stopped member or
	// starting a running one, or for a member never served.
	ErrMemberState = errors.New("netserver: member state")
)

// notServing is what a member without quorum answers most four-letter
// words with (measured on 3.8.0).
const notServing = "This ZooKeeper instance is not currently serving requests\n"

// Members lists the ensemble's members in index order.
func (s *Server) Members() []MemberInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]MemberInfo, len(s.members))
	for i, mb := range s.members {
		out[i] = MemberInfo{Index: i, State: s.memberState(i)}
		if mb.addr != nil {
			out[i].Addr = mb.addr.String()
		}
	}
	return out
}

func (s *Server) memberState(i int) string {
	switch {
	case s.members[i].stopped:
		return "stopped"
	case s.leader < 0:
		return "looking"
	case len(s.members) == 1:
		return "standalone"
	case i == s.leader:
		return "leader"
	}
	return "follower"
}

// StopMember stops member i as a killed server: its listener closes (new
// connections are refused), its clients' connections close (their
// sessions live on, detached), and the ensemble re-elects or loses
// quorum as described above.
func (s *Server) StopMember(i int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkMember(i, false); err != nil {
		return fmt.Errorf("netserver: stop member %d: %w", i, err)
	}
	mb := &s.members[i]
	mb.stopped = true
	mb.l.Close()
	mb.l = nil
	s.logf("member %d stopped", i)
	s.dropConns(func(c *conn) bool { return c.replica == i })
	s.settle()
	return nil
}

// StartMember starts a stopped member again, listening on the same
// address it had; it serves once it is back in a quorum.
func (s *Server) StartMember(i int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkMember(i, true); err != nil {
		return fmt.Errorf("netserver: start member %d: %w", i, err)
	}
	mb := &s.members[i]
	l, err := net.Listen(mb.addr.Network(), mb.addr.String())
	if err != nil {
		return fmt.Errorf("netserver: start member %d: %w", i, err)
	}
	mb.l, mb.stopped = l, false
	s.listeners[l] = struct{}{}
	s.logf("member %d started on %s", i, mb.addr)
	// The ensemble settles (leader, quorum) before the member accepts:
	// a client that connects at once must not be turned away as if
	// there were no quorum, which would fail the requests it queued.
	s.settle()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.acceptLoop(l, i)
	}()
	return nil
}

// checkMember checks that member i exists, has been served, and is
// stopped (wantStopped) or running.
func (s *Server) checkMember(i int, wantStopped bool) error {
	switch {
	case s.closed:
		return ErrClosed
	case i < 0 || i >= len(s.members):
		return fmt.Errorf("%w: %d (ensemble of %d)", ErrNoMember, i, len(s.members))
	case s.members[i].addr == nil:
		return fmt.Errorf("%w: never served", ErrMemberState)
	case s.members[i].stopped != wantStopped && wantStopped:
		return fmt.Errorf("%w: already running", ErrMemberState)
	case s.members[i].stopped != wantStopped:
		return fmt.Errorf("%w: already stopped", ErrMemberState)
	}
	return nil
}

// settle elects a leader or gives up quorum after a member stopped or
// started.
func (s *Server) settle() {
	running := 0
	for _, mb := range s.members {
		if !mb.stopped {
			running++
		}
	}
	switch {
	case 2*running <= len(s.members):
		if s.leader >= 0 {
			s.logf("quorum lost: %d of %d members running; members drop their clients and serve no sessions", running, len(s.members))
			s.leader = -1
			s.dropConns(func(*conn) bool { return true })
		}
	case s.leader < 0 || s.members[s.leader].stopped:
		if s.leader >= 0 {
			// The followers lose their leader: they drop their clients
			// while they elect another.
			s.dropConns(func(*conn) bool { return true })
		}
		s.leader = s.lowestRunning()
		s.m.RenewSessions()
		s.logf("member %d elected leader; sessions get fresh timeouts", s.leader)
	}
	s.deliver()
}

func (s *Server) lowestRunning() int {
	for i, mb := range s.members {
		if !mb.stopped {
			return i
		}
	}
	panic("netserver: settle found a quorum with no running member")
}

// serving reports whether the ensemble has a quorum.
func (s *Server) serving() bool { return s.leader >= 0 }

// dropConns closes the matching connections at once, as a server that
// dies or leaves the quorum does, in session order (sessions detach from
// the Machine in a fixed order). Their sessions live on.
func (s *Server) dropConns(match func(*conn) bool) {
	var cs []*conn
	for c := range s.conns {
		if match(c) && !c.dead {
			cs = append(cs, c)
		}
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].session < cs[j].session })
	for _, c := range cs {
		s.unbind(c)
		c.nc.Close()
	}
}

// fourLetterNotServing answers word as a member without quorum does, and
// false for the words it answers as usual.
func fourLetterNotServing(word string) (string, bool) {
	switch word {
	case "ruok", "envi":
		return "", false
	case "isro":
		return "null", true
	}
	return notServing, true
}
