package history

import (
	"context"
	"strconv"
	"strings"

	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// Recipe returns r with every acquisition recorded by rec: its Conn
// wrapped (Recorder.Conn), and the marks Acquire, Held or GaveUp,
// Release and Released around the calls. The client is read from the
// holder id, "c<N>_..." as the harness and the real-run workload name
// it (client N-1); an id without it is client 0.
func Recipe(r recipe.Lock, rec *Recorder) recipe.Lock {
	r.Acquire = rec.acquire(r.Acquire, false)
	if r.AcquireRead != nil {
		r.AcquireRead = rec.acquire(r.AcquireRead, true)
	}
	return r
}

type acquireFunc = func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error)

func (r *Recorder) acquire(acquire acquireFunc, read bool) acquireFunc {
	return func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
		client := clientOf(id)
		r.Mark(client, Acquire, read, conn.Session())
		held, err := acquire(ctx, r.Conn(client, conn), dir, id)
		if err != nil {
			r.Mark(client, GaveUp, read, conn.Session())
			return nil, err
		}
		r.Mark(client, Held, read, conn.Session())
		return wrapHeld(marked{Held: held, rec: r, client: client, read: read, conn: conn}), nil
	}
}

// clientOf reads the client from a holder id "c<N>_...".
func clientOf(id string) int {
	n, _, _ := strings.Cut(strings.TrimPrefix(id, "c"), "_")
	if c, err := strconv.Atoi(n); err == nil && c > 0 {
		return c - 1
	}
	return 0
}

// marked is a Held whose Release is marked.
type marked struct {
	recipe.Held
	rec    *Recorder
	client int
	read   bool
	conn   zkapi.Conn
}

func (m marked) Release(ctx context.Context) error {
	m.rec.Mark(m.client, Release, m.read, m.conn.Session())
	err := m.Held.Release(ctx)
	m.rec.Mark(m.client, Released, m.read, m.conn.Session())
	return err
}

// The optional methods of a Held that the workloads look for: a
// wrapper has them exactly when the wrapped Held does.
type (
	tokener interface {
		Token(context.Context) (int64, error)
	}
	fencer interface {
		Fenced(context.Context, ...zkapi.Op) ([]zkapi.OpResult, error)
	}
	withToken  struct{ marked }
	withFenced struct{ marked }
	withBoth   struct{ marked }
)

func (h withToken) Token(ctx context.Context) (int64, error) { return h.Held.(tokener).Token(ctx) }
func (h withBoth) Token(ctx context.Context) (int64, error)  { return h.Held.(tokener).Token(ctx) }
func (h withFenced) Fenced(ctx context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error) {
	return h.Held.(fencer).Fenced(ctx, ops...)
}
func (h withBoth) Fenced(ctx context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error) {
	return h.Held.(fencer).Fenced(ctx, ops...)
}

func wrapHeld(m marked) recipe.Held {
	_, t := m.Held.(tokener)
	_, f := m.Held.(fencer)
	switch {
	case t && f:
		return withBoth{m}
	case t:
		return withToken{m}
	case f:
		return withFenced{m}
	}
	return m
}
