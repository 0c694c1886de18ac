package conformance_test

import (
	"context"
	"testing"

	"github.com/zksim/zksim/internal/conformance"
	"github.com/zksim/zksim/zkapi"
)

// The same benchmarks run on fakezk's in-process Conn and on a real server
// through the go-zookeeper adapter (skipped without one), so one run gives
// the ratio. Single goroutine: this is latency per operation.

func BenchmarkCreateDelete(b *testing.B) {
	forTargets(b, func(b *testing.B, c zkapi.Conn, root string) {
		ctx := context.Background()
		path := root + "/n"
		for b.Loop() {
			if _, err := c.Create(ctx, path, nil, zkapi.Persistent); err != nil {
				b.Fatal(err)
			}
			if err := c.Delete(ctx, path, -1); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkGet(b *testing.B) {
	forTargets(b, func(b *testing.B, c zkapi.Conn, root string) {
		ctx := context.Background()
		for b.Loop() {
			if _, _, err := c.Get(ctx, root); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkExists(b *testing.B) {
	forTargets(b, func(b *testing.B, c zkapi.Conn, root string) {
		ctx := context.Background()
		for b.Loop() {
			if _, _, err := c.Exists(ctx, root+"/missing"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func forTargets(b *testing.B, f func(*testing.B, zkapi.Conn, string)) {
	targets := []struct {
		name string
		make func(*testing.B) conformance.Target
	}{
		{"fake", func(b *testing.B) conformance.Target { return newFake(b, 1) }},
		{"real", func(b *testing.B) conformance.Target { return newReal(b) }},
	}
	for _, tg := range targets {
		b.Run(tg.name, func(b *testing.B) {
			ctx := context.Background()
			target := tg.make(b)
			c, err := target.Connect(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			root := uniqueRoot("bench")
			if _, err := c.Create(ctx, root, []byte("data"), zkapi.Persistent); err != nil {
				b.Fatal(err)
			}
			defer c.Delete(ctx, root, -1)
			f(b, c, root)
		})
	}
}
