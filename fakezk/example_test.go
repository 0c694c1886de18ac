package fakezk_test

import (
	"context"
	"fmt"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/zkapi"
)

// An in-memory ZooKeeper for a unit test: two sessions, a watch, and a
// session expiry that deletes an ephemeral node. Nothing here waits:
// events are delivered before the next call returns.
func Example() {
	ctx := context.Background()
	srv := fakezk.MustServer(fakezk.Config{})
	defer srv.Close()
	alice, _ := srv.Connect(fakezk.ConnOptions{})
	bob, _ := srv.Connect(fakezk.ConnOptions{})

	alice.Create(ctx, "/lock", nil, zkapi.Persistent)
	node, _ := alice.Create(ctx, "/lock/n-", nil, zkapi.EphemeralSequential)
	fmt.Println("alice created", node)

	_, ok, watch, _ := bob.ExistsW(ctx, node)
	fmt.Println("bob sees it:", ok)

	srv.Expire(alice.Session().ID) // as if alice were disconnected too long
	ev, _ := watch.Wait(ctx)
	fmt.Println("bob's watch:", ev)
	// Output:
	// alice created /lock/n-0000000000
	// bob sees it: true
	// bob's watch: NodeDeleted /lock/n-0000000000
}

// Faults are injected by an Interceptor: here the reply to a create is
// lost after the server applied it, the "lost create" that orphans lock
// nodes in naive recipes.
func ExampleServer_Intercept() {
	ctx := context.Background()
	srv := fakezk.MustServer(fakezk.Config{})
	defer srv.Close()
	c, _ := srv.Connect(fakezk.ConnOptions{})
	c.Create(ctx, "/lock", nil, zkapi.Persistent)

	srv.Intercept(func(_ fakezk.State, req fakezk.Request) fakezk.Fault {
		if req.Op == "create" && req.Path == "/lock/n-" {
			return fakezk.LoseReply
		}
		return fakezk.Deliver
	})
	_, err := c.Create(ctx, "/lock/n-", nil, zkapi.EphemeralSequential)
	srv.Intercept(nil)
	kids, _, _ := c.Children(ctx, "/lock")
	fmt.Println(zkapi.Name(err), kids)
	// Output: ConnectionLoss [n-0000000000]
}

// A recursive persistent watch (ZooKeeper 3.6+'s addWatch) sees every
// node below its path created, changed or deleted, and stays.
func ExampleConn_AddWatch() {
	ctx := context.Background()
	srv := fakezk.MustServer(fakezk.Config{})
	defer srv.Close()
	alice, _ := srv.Connect(fakezk.ConnOptions{})
	bob, _ := srv.Connect(fakezk.ConnOptions{})

	w, _ := alice.AddWatch(ctx, "/config", true) // any zkapi.PersistentWatcher
	bob.Create(ctx, "/config", nil, zkapi.Persistent)
	bob.Create(ctx, "/config/db", []byte("a"), zkapi.Persistent)
	bob.Set(ctx, "/config/db", []byte("b"), -1)
	for range 3 {
		ev, _ := w.Next(ctx)
		fmt.Println(ev)
	}
	// Output:
	// NodeCreated /config
	// NodeCreated /config/db
	// NodeDataChanged /config/db
}
