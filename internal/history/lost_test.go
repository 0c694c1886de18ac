package history_test

import (
	"context"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/history"
	"github.com/zksim/zksim/zkapi"
)

// forgetful acknowledges deletes it never makes, as servers that lost
// them would.
type forgetful struct{ zkapi.Conn }

func (forgetful) Delete(context.Context, string, int32) error { return nil }

// Multi acknowledges every op and applies none.
func (forgetful) Multi(_ context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error) {
	return make([]zkapi.OpResult, len(ops)), nil
}

// lostHistory records c1 creating a node under /l and deleting it
// through forgetful servers, then read, and returns the history and the
// node.
func lostHistory(t *testing.T, read func(ctx context.Context, c1, c2 zkapi.Conn, node string)) ([]history.Entry, string) {
	t.Helper()
	ctx := context.Background()
	srv := fakezk.MustServer(fakezk.Config{})
	rec := history.New(counter())
	var conns []zkapi.Conn
	for i := range 2 {
		raw, err := srv.Connect(fakezk.ConnOptions{})
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, rec.Conn(i, forgetful{raw}))
	}
	if _, err := conns[0].Create(ctx, "/l", nil, zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	node, err := conns[0].Create(ctx, "/l/n-", nil, zkapi.EphemeralSequential)
	if err != nil {
		t.Fatal(err)
	}
	if err := conns[0].Delete(ctx, node, -1); err != nil {
		t.Fatal(err)
	}
	read(ctx, conns[0], conns[1], node)
	return rec.Entries(), node
}

func TestLostDeletes_OwnRead(t *testing.T) {
	reads := map[string]func(ctx context.Context, c1, c2 zkapi.Conn, node string){
		"exists":   func(ctx context.Context, c1, _ zkapi.Conn, node string) { c1.Exists(ctx, node) },
		"getw":     func(ctx context.Context, c1, _ zkapi.Conn, node string) { c1.GetW(ctx, node) },
		"children": func(ctx context.Context, c1, _ zkapi.Conn, _ string) { c1.Children(ctx, "/l") },
	}
	for name, read := range reads {
		t.Run(name, func(t *testing.T) {
			es, node := lostHistory(t, read)
			lost := history.LostDeletes(es, nil, 100)
			if len(lost) != 1 || lost[0].Path != node || lost[0].Client != 0 || lost[0].Final || lost[0].Seen <= lost[0].Deleted {
				t.Fatalf("LostDeletes = %+v, want c1's delete of %s seen again by its own %s", lost, node, name)
			}
		})
	}
}

// Another client may read from a follower that lags: its sighting is
// no evidence, and neither is nothing at all.
func TestLostDeletes_NotEvidence(t *testing.T) {
	reads := map[string]func(ctx context.Context, c1, c2 zkapi.Conn, node string){
		"other client": func(ctx context.Context, _, c2 zkapi.Conn, node string) { c2.Exists(ctx, node) },
		"no read":      func(context.Context, zkapi.Conn, zkapi.Conn, string) {},
	}
	for name, read := range reads {
		t.Run(name, func(t *testing.T) {
			es, _ := lostHistory(t, read)
			if lost := history.LostDeletes(es, nil, 100); len(lost) != 0 {
				t.Fatalf("LostDeletes = %+v, want none", lost)
			}
		})
	}
}

// The listing after the final sync is evidence, whoever deleted.
func TestLostDeletes_FinalListing(t *testing.T) {
	es, node := lostHistory(t, func(context.Context, zkapi.Conn, zkapi.Conn, string) {})
	lost := history.LostDeletes(es, []string{"/l/other", node}, 100)
	if len(lost) != 1 || lost[0].Path != node || !lost[0].Final || lost[0].Seen != 100 {
		t.Fatalf("LostDeletes = %+v, want %s seen in the final listing at 100", lost, node)
	}
}

// A delete inside a multi counts as a delete: the multi's Return names
// no ops, its Call does.
func TestLostDeletes_Multi(t *testing.T) {
	es, node := lostHistory(t, func(ctx context.Context, c1, _ zkapi.Conn, node string) {
		c1.Multi(ctx, zkapi.DeleteOp{Path: node, Version: -1})
		c1.Exists(ctx, node)
	})
	lost := history.LostDeletes(es, nil, 100)
	if len(lost) != 2 || lost[0].Path != node || lost[1].Path != node {
		t.Fatalf("LostDeletes = %+v, want the plain delete and the multi's, both seen again", lost)
	}
}
