package ztree_test

import (
	"context"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/ztree"
	"github.com/zksim/zksim/zkapi"
)

func TestDeleteTree_DeletesSubtreeOnly(t *testing.T) {
	srv := fakezk.MustServer(fakezk.Config{})
	defer srv.Close()
	c, err := srv.Connect(fakezk.ConnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	for _, p := range []string{"/a", "/a/b", "/a/b/c", "/a/d", "/keep"} {
		if _, err := c.Create(ctx, p, nil, zkapi.Persistent); err != nil {
			t.Fatal(err)
		}
	}
	if err := ztree.DeleteTree(ctx, c, "/a"); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{"/a": false, "/a/b": false, "/keep": true} {
		if _, ok, err := c.Exists(ctx, p); err != nil || ok != want {
			t.Fatalf("Exists(%s) after DeleteTree = %v, %v; want %v", p, ok, err, want)
		}
	}
	// A tree already gone is fine.
	if err := ztree.DeleteTree(ctx, c, "/a"); err != nil {
		t.Fatalf("DeleteTree of a missing node: %v", err)
	}
}
