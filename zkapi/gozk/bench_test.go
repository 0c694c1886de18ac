package gozk_test

import (
	"context"
	"testing"

	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// BenchmarkCreateDelete measures one create and one delete of a persistent
// node, one after the other: two round trips and two writes.
func BenchmarkCreateDelete(b *testing.B) {
	servers := standalone(b)
	root := newRoot(b, servers)
	c := dial(b, servers, gozk.Config{})
	ctx := context.Background()
	p := root + "/n"
	for b.Loop() {
		if _, err := c.Create(ctx, p, nil, zkapi.Persistent); err != nil {
			b.Fatal(err)
		}
		if err := c.Delete(ctx, p, zkapi.AnyVersion); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGet measures a read of a small node: one round trip.
func BenchmarkGet(b *testing.B) {
	servers := standalone(b)
	root := newRoot(b, servers)
	c := dial(b, servers, gozk.Config{})
	ctx := context.Background()
	p := root + "/n"
	if _, err := c.Create(ctx, p, []byte("0123456789"), zkapi.Persistent); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := c.Get(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}
