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
			n.memberFault(i)
		}
	}
}

func (n *Nemesis) memberFault(i int) {
	f, ms := n.cfg.Schedule[i], n.cfg.Members
	m, role := f.Member, ""
	if m < 0 {
		var err error
		if m, err = ms.Leader(n.ctx); err != nil {
			n.record(Injection{Kind: f.Kind, Client: -1, Member: -1, What: "no leader found: " + err.Error()})
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
