package gozk

import (
	"context"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/zkapi"
)

// watch wraps a go-zookeeper watch channel, which delivers exactly one event
// and is then closed. Whichever Wait receives the event stores it in ev and
// closes fired; every other Wait, now or later, reads ev after fired is
// closed.
type watch struct {
	ch    <-chan zk.Event
	ev    zkapi.Event // written once, before fired is closed
	fired chan struct{}
}

func newWatch(ch <-chan zk.Event) *watch {
	return &watch{ch: ch, fired: make(chan struct{})}
}

// Wait implements zkapi.Watch. An event that has already arrived is
// returned even if ctx is done.
func (w *watch) Wait(ctx context.Context) (zkapi.Event, error) {
	// Poll first: select picks at random among ready cases, and an arrived
	// event must win over a done ctx.
	select {
	case <-w.fired:
		return w.ev, nil
	case ev, ok := <-w.ch:
		return w.received(ev, ok), nil
	default:
	}
	select {
	case <-w.fired:
		return w.ev, nil
	case ev, ok := <-w.ch:
		return w.received(ev, ok), nil
	case <-ctx.Done():
		return zkapi.Event{}, ctx.Err()
	}
}

// received handles a receive from w.ch: the event itself (ok), or the
// closed channel after another Wait took the event, which it stores without
// blocking in between, so waiting for fired is short.
func (w *watch) received(ev zk.Event, ok bool) zkapi.Event {
	if ok {
		w.ev = convertEvent(ev)
		close(w.fired)
	}
	<-w.fired
	return w.ev
}

// convertEvent maps a go-zookeeper watch event. The event types share
// ZooKeeper's numbers. go-zookeeper ends pending watches with
// EventNotWatching carrying ErrSessionExpired (expiry) or ErrClosing (Close).
func convertEvent(ev zk.Event) zkapi.Event {
	out := zkapi.Event{Type: zkapi.EventType(ev.Type), Path: ev.Path}
	if ev.Type == zk.EventNotWatching {
		out.Err = bareError(ev.Err)
		if out.Err == nil {
			out.Err = zkapi.ErrClosed // not produced by v1.0.4; keep the contract
		}
	}
	return out
}
