package nemesis

import (
	"context"
	"fmt"
	"time"
)

// memberFaults injects the member faults as their moments come, one at a
// time, so that a 3-member ensemble never loses two members to the
// nemesis at once; at Close it restores a member it left stopped or down.
// One at a time means whole in between: after each, the next waits until
// every member serves again and memberSettle has passed (rejoined).
func (n *Nemesis) memberFaults() {
	defer n.wg.Done()
	for {
		select {
		case <-n.ctx.Done():
			return
		case i := <-n.members:
			if n.ctx.Err() != nil {
				return // select picks either when both are ready: none after Stop
			}
			n.memberFault(i)
		}
	}
}

func (n *Nemesis) memberFault(i int) {
	f := n.cfg.Schedule[i]
	m := -1
	switch f.Kind {
	case IsolateLeader:
		m = n.isolateLeader(i, f)
	case LagMember:
		m = n.lagMember(i, f)
	default:
		m = n.stopMember(i, f)
	}
	if m >= 0 {
		n.rejoined(f, m)
	}
}

// A member that has just been continued, restarted, healed or caught up
// is not yet back: it rejoins the quorum, takes the leader's history and
// logs it, and only then serves. A second member fault inside that
// window takes two members out of three, which the nemesis promises
// never to do; and on ZooKeeper 3.8.0 it can lose acknowledged writes (a
// follower that took the new epoch before logging the leader's history
// is elected and truncates the others: ZOOKEEPER-4643, -4646, -3911),
// which no recipe survives. So the next member fault waits until every
// member serves (rejoinWait at most), then memberSettle more: with a
// lagged follower releasing just before a leader fault the writes were
// lost in 1 run of 15, with 2 s between them in none of 7.
const (
	rejoinWait   = 20 * time.Second
	memberSettle = 2 * time.Second
)

// rejoined waits until every member serves again after fault f on member
// m, records when, then lets the ensemble settle.
func (n *Nemesis) rejoined(f Fault, m int) {
	began := time.Now()
	for {
		serving := 0
		for k := range n.cfg.Members.Len() {
			if n.cfg.Members.Mode(k) != "" {
				serving++
			}
		}
		waited := time.Since(began).Round(10 * time.Millisecond)
		switch {
		case serving == n.cfg.Members.Len():
			n.record(Injection{Kind: f.Kind, Client: -1, Member: m, What: fmt.Sprintf("serving again: all %d members serve, %v after", serving, waited), End: true})
			n.sleep(memberSettle)
			return
		case n.ctx.Err() != nil:
			return
		case time.Since(began) > rejoinWait:
			n.record(Injection{Kind: f.Kind, Client: -1, Member: m, What: fmt.Sprintf("serving again: only %d of %d members serve after %v", serving, n.cfg.Members.Len(), waited), End: true})
			return
		}
		n.sleep(50 * time.Millisecond)
	}
}

// stopMember pauses or kills a member (the leader, if the fault names
// none) for f.For, then continues or restarts it; it returns the member,
// or -1 if it injected nothing.
func (n *Nemesis) stopMember(i int, f Fault) int {
	ms := n.cfg.Members
	m, role := f.Member, ""
	if m < 0 {
		var ok bool
		if m, ok = n.leader(f); !ok {
			return -1
		}
		role = " (the leader)"
	}
	down, up, verb := ms.Pause, ms.Resume, "stopped (SIGSTOP)"
	if f.Kind == KillMember {
		down, up, verb = ms.Kill, func(m int) error { return n.restart(m) }, "killed (SIGKILL)"
	}
	if err := down(m); err != nil {
		n.record(Injection{Kind: f.Kind, Client: -1, Member: m, What: fmt.Sprintf("%s failed: %v", verb, err)})
		return -1
	}
	n.mark(i)
	n.record(Injection{Kind: f.Kind, Client: -1, Member: m, What: fmt.Sprintf("%s%s for %v", verb, role, f.For)})
	n.sleep(f.For)
	what := "continued (SIGCONT)"
	if f.Kind == KillMember {
		what = "restarted"
	}
	if err := up(m); err != nil {
		what += " failed: " + err.Error()
	}
	n.record(Injection{Kind: f.Kind, Client: -1, Member: m, What: what, End: true})
	return m
}

// isolateLeader cuts the member leading now off from the others for
// f.For, then heals it: the others elect a new leader meanwhile. It
// returns the member, or -1 if it injected nothing.
func (n *Nemesis) isolateLeader(i int, f Fault) int {
	m, ok := n.leader(f)
	if !ok {
		return -1
	}
	if err := n.cfg.Members.Isolate(m); err != nil {
		n.record(Injection{Kind: f.Kind, Client: -1, Member: m, What: "isolating failed: " + err.Error()})
		return -1
	}
	n.mark(i)
	n.record(Injection{Kind: f.Kind, Client: -1, Member: m, What: fmt.Sprintf("isolated (the leader) for %v: its links to the other members cut", f.For)})
	n.sleep(f.For)
	what := "healed"
	if err := n.cfg.Members.Heal(m); err != nil {
		what += " failed: " + err.Error()
	}
	n.record(Injection{Kind: f.Kind, Client: -1, Member: m, What: what, End: true})
	return m
}

// lagMember holds a follower's stream from the leader for f.For: the
// member the fault names, or when it names none or one that does not
// follow now (the leader, or a member still rejoining after a fault),
// the next member that does. It returns the member, or -1 if it
// injected nothing.
func (n *Nemesis) lagMember(i int, f Fault) int {
	l, m, ok := n.follower(f)
	if !ok {
		return -1
	}
	if err := n.cfg.Members.Lag(m, f.For); err != nil {
		n.record(Injection{Kind: f.Kind, Client: -1, Member: m, What: "lagging failed: " + err.Error()})
		return -1
	}
	n.mark(i)
	n.record(Injection{Kind: f.Kind, Client: -1, Member: m,
		What: fmt.Sprintf("lagging (a follower of member %d) for %v: the leader's stream to it held, its clients read an old tree", l+1, f.For)})
	n.sleep(f.For)
	what := "caught up: the leader's stream released"
	if err := n.cfg.Members.Lag(m, 0); err != nil { // at once if the nemesis stopped early
		what += " failed: " + err.Error()
	}
	n.record(Injection{Kind: f.Kind, Client: -1, Member: m, What: what, End: true})
	return m
}

// followerWait bounds how long lagMember waits for a member to follow:
// one that rejoins after a fault does within a few seconds.
const followerWait = 10 * time.Second

// follower finds the leader and a member that follows it now (see
// lagMember), waiting up to followerWait; false (logged) if none does.
func (n *Nemesis) follower(f Fault) (leader, member int, ok bool) {
	ms := n.cfg.Members
	deadline := time.Now().Add(followerWait)
	for {
		l, ok := n.leader(f)
		if !ok {
			return -1, -1, false
		}
		start := f.Member
		if start < 0 {
			start = l + 1
		}
		for k := range ms.Len() {
			if m := (start + k) % ms.Len(); m != l && ms.Mode(m) == "follower" {
				return l, m, true
			}
		}
		if time.Now().After(deadline) || n.ctx.Err() != nil {
			n.record(Injection{Kind: f.Kind, Client: -1, Member: -1, What: fmt.Sprintf("no member followed leader %d within %v", l+1, followerWait)})
			return -1, -1, false
		}
		n.sleep(50 * time.Millisecond)
	}
}

// leader is the member leading now, or false (logged) if none is found
// before the nemesis stops.
func (n *Nemesis) leader(f Fault) (int, bool) {
	m, err := n.cfg.Members.Leader(n.ctx)
	if err != nil {
		n.record(Injection{Kind: f.Kind, Client: -1, Member: -1, What: "no leader found: " + err.Error()})
		return -1, false
	}
	return m, true
}

// restart brings member m back, given up to a minute even after Close.
func (n *Nemesis) restart(m int) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(n.ctx), time.Minute)
	defer cancel()
	return n.cfg.Members.Restart(ctx, m)
}

// sleep waits d, or less if the nemesis closes.
func (n *Nemesis) sleep(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-n.ctx.Done():
	}
}
