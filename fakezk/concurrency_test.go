package fakezk_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/zkapi"
)

// Conns of one Server may be used from many goroutines at once (run with
// -race); every sequential create gets a distinct number, and the session
// watchers end when the server closes their Conns.
func TestServer_ConcurrentUse(t *testing.T) {
	srv := newServer(t, fakezk.Config{Followers: 1})
	admin := connect(t, srv, fakezk.ConnOptions{})
	mustCreate(t, admin, "/q", zkapi.Persistent)
	const workers, each = 8, 50
	var wg sync.WaitGroup
	names := make(chan string, workers*each)
	errs := make(chan error, workers)
	for i := range workers {
		c := connect(t, srv, fakezk.ConnOptions{Replica: i % 2})
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range each {
				p, err := c.Create(ctx, "/q/n-", nil, zkapi.EphemeralSequential)
				if err != nil {
					errs <- err
					return
				}
				names <- p
				if _, _, w, err := c.ExistsW(ctx, p); err == nil {
					c.Delete(ctx, p, -1)
					w.Wait(ctx)
				}
			}
		}()
		go func() { // session watcher, ends when its Conn closes
			defer wg.Done()
			for s := c.Session(); s.State != zkapi.StateClosed; {
				var err error
				if s, err = c.WaitSession(ctx, s.Seq); err != nil {
					return
				}
			}
		}()
		wg.Add(1)
		go func() { defer wg.Done(); srv.Tick(1) }()
	}
	go func() { wg.Wait(); close(names) }()
	seen := map[string]bool{}
	for n := range names {
		if seen[n] {
			t.Fatalf("sequence name %s handed out twice", n)
		}
		seen[n] = true
		if len(seen) == workers*each {
			srv.Close()
		}
	}
	select {
	case err := <-errs:
		if !errors.Is(err, zkapi.ErrClosed) {
			t.Fatal(err)
		}
	default:
	}
	if len(seen) != workers*each {
		t.Fatalf("got %d names, want %d", len(seen), workers*each)
	}
}
