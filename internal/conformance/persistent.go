package conformance

import (
	"context"
	"fmt"
	"strings"

	"github.com/zksim/zksim/zkapi"
)

// persistentRec is a persistent watch a script set: "sN addwatch /a
// persistent|recursive" labels it p1, p2...; its events print as they
// arrive, each as "  pN <- event", until it ends.
type persistentRec struct {
	label string
	sess  string
	w     zkapi.PersistentWatch
	done  bool
}

func (r *Runner) addPersistent(ctx context.Context, label string, c zkapi.Conn, a *args) (string, error) {
	path := r.abs(a.next("path"))
	mode := a.next("mode")
	if mode != "persistent" && mode != "recursive" {
		a.fail("want persistent or recursive, not %q", mode)
	}
	if err := a.done(); err != nil {
		return "", err
	}
	pw, ok := c.(zkapi.PersistentWatcher)
	if !ok {
		return "", fmt.Errorf("%T has no AddWatch", c)
	}
	w, err := pw.AddWatch(ctx, path, mode == "recursive")
	if err != nil {
		return r.result(err, nil), nil
	}
	rec := &persistentRec{label: fmt.Sprintf("p%d", len(r.persistent)+1), sess: label, w: w}
	r.persistent = append(r.persistent, rec)
	return "ok " + rec.label, nil
}

// removePersistent is "sN removewatch pN".
func (r *Runner) removePersistent(ctx context.Context, a *args) (string, error) {
	label := a.next("watch label")
	if err := a.done(); err != nil {
		return "", err
	}
	for _, p := range r.persistent {
		if p.label == label {
			return r.result(p.w.Remove(ctx), nil), nil
		}
	}
	return "", fmt.Errorf("no persistent watch %s", label)
}

// drain prints every event queued on p, with done (a finished context)
// so that it does not wait; its end (NotWatching) is its last line.
func (r *Runner) drain(done context.Context, p *persistentRec, b *strings.Builder) {
	for !p.done {
		ev, err := p.w.Next(done)
		if err != nil {
			return
		}
		p.done = ev.Type == zkapi.EventNotWatching
		fmt.Fprintf(b, "  %s <- %s\n", p.label, r.event(ev))
	}
}
