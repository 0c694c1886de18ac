package nemesis

import (
	"context"
	"fmt"
	"time"
)

// memberFaults injects the member faults as their moments come, one at a
// time, so that a 3-member ensemble never loses two members to the
// nemesis at once; at Close it restores a member it left stopped or down.
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
	switch f.Kind {
	case IsolateLeader:
		n.isolateLeader(i, f)
	case LagMember:
		n.lagMember(i, f)
	default:
		n.stopMember(i, f)
	}
}

// stopMember pauses or kills a member (the leader, if the fault names
// none) for f.For, then continues or restarts it.
func (n *Nemesis) stopMember(i int, f Fault) {
	ms := n.cfg.Members
	m, role := f.Member, ""
	if m < 0 {
		var ok bool
		if m, ok = n.leader(f); !ok {
			return
		}
		role = " (the leader)"
	}
	down, up, verb := ms.Pause, ms.Resume, "stopped (SIGSTOP)"
	if f.Kind == KillMember {
		down, up, verb = ms.Kill, func(m int) error { return n.restart(m) }, "killed (SIGKILL)"
	}
	if err := down(m); err != nil {
		n.record(Injection{Kind: f.Kind, Client: -1, Member: m, What: fmt.Sprintf("%s failed: %v", verb, err)})
		return
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
	n.record(Injection{Kind: f.Kind, Client: -1, Member: m, What: what})
}

// isolateLeader cuts the member leading now off from the others for
// f.For, then heals it: the others elect a new leader meanwhile.
func (n *Nemesis) isolateLeader(i int, f Fault) {
	m, ok := n.leader(f)
	if !ok {
		return
	}
	if err := n.cfg.Members.Isolate(m); err != nil {
		n.record(Injection{Kind: f.Kind, Client: -1, Member: m, What: "isolating failed: " + err.Error()})
		return
	}
	n.mark(i)
	n.record(Injection{Kind: f.Kind, Client: -1, Member: m, What: fmt.Sprintf("isolated (the leader) for %v: its links to the other members cut", f.For)})
	n.sleep(f.For)
	what := "healed"
	if err := n.cfg.Members.Heal(m); err != nil {
		what += " failed: " + err.Error()
	}
	n.record(Injection{Kind: f.Kind, Client: -1, Member: m, What: what})
}

// lagMember holds a follower's stream from the leader for f.For: the
// member the fault names, or when it names none or one that does not
// follow now (the leader, or a member still rejoining after a fault),
// the next member that does.
func (n *Nemesis) lagMember(i int, f Fault) {
	l, m, ok := n.follower(f)
	if !ok {
		return
	}
	if err := n.cfg.Members.Lag(m, f.For); err != nil {
		n.record(Injection{Kind: f.Kind, Client: -1, Member: m, What: "lagging failed: " + err.Error()})
		return
	}
	n.mark(i)
	n.record(Injection{Kind: f.Kind, Client: -1, Member: m,
		What: fmt.Sprintf("lagging (a follower of member %d) for %v: the leader's stream to it held, its clients read an old tree", l+1, f.For)})
	n.sleep(f.For)
	what := "caught up: the leader's stream released"
	if err := n.cfg.Members.Lag(m, 0); err != nil { // at once if the nemesis stopped early
		what += " failed: " + err.Error()
	}
	n.record(Injection{Kind: f.Kind, Client: -1, Member: m, What: what})
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
