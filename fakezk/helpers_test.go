package fakezk_test

import (
	"context"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/zkapi"
)

var ctx = context.Background()

func newServer(t *testing.T, cfg fakezk.Config) *fakezk.Server {
	t.Helper()
	srv, err := fakezk.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func connect(t *testing.T, srv *fakezk.Server, opts fakezk.ConnOptions) fakezk.Conn {
	t.Helper()
	c, err := srv.Connect(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustCreate(t *testing.T, c zkapi.Conn, path string, mode zkapi.CreateMode) string {
	t.Helper()
	p, err := c.Create(ctx, path, nil, mode)
	if err != nil {
		t.Fatalf("create %s: %v", path, err)
	}
	return p
}

func fired(t *testing.T, w zkapi.Watch) (zkapi.Event, bool) {
	t.Helper()
	done, cancel := context.WithCancel(ctx)
	cancel()
	ev, err := w.Wait(done)
	return ev, err == nil
}

func existsW(t *testing.T, c zkapi.Conn, path string) zkapi.Watch {
	t.Helper()
	_, _, w, err := c.ExistsW(ctx, path)
	if err != nil {
		t.Fatalf("exists %s: %v", path, err)
	}
	return w
}
