package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/zkapi"
)

type client struct {
	name  string
	conn  fakezk.Conn
	node  string
	watch zkapi.Watch
}

// demo tours fakezk. Every line it prints is determined by clients and
// seed; nothing depends on time or scheduling.
func demo(w io.Writer, clients int, seed uint64) error {
	ctx := context.Background()
	srv, err := fakezk.NewServer(fakezk.Config{Seed: seed})
	if err != nil {
		return err
	}
	defer srv.Close()
	admin, _ := srv.Connect(fakezk.ConnOptions{})
	if _, err := admin.Create(ctx, "/lock", nil, zkapi.Persistent); err != nil {
		return err
	}

	fmt.Fprintf(w, "== %d clients queue under /lock with ephemeral sequential nodes\n", clients)
	cs := make([]*client, clients)
	for i := range cs {
		c, _ := srv.Connect(fakezk.ConnOptions{})
		node, err := c.Create(ctx, "/lock/n-", nil, zkapi.EphemeralSequential)
		if err != nil {
			return err
		}
		cs[i] = &client{name: fmt.Sprintf("c%d", i+1), conn: c, node: node}
		fmt.Fprintf(w, "%s created %s (session %#x)\n", cs[i].name, node, c.Session().ID)
	}
	kids, _, err := admin.Children(ctx, "/lock")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "getChildren(/lock) = %v   (unordered, as on the real server: sort!)\n", kids)

	fmt.Fprintln(w, "== each waiter watches only its predecessor (no herd)")
	for i, c := range cs[1:] {
		pred := cs[i].node
		_, ok, wt, err := c.conn.ExistsW(ctx, pred)
		if err != nil || !ok {
			return fmt.Errorf("%s: predecessor %s: exists=%v err=%v", c.name, pred, ok, err)
		}
		c.watch = wt
		fmt.Fprintf(w, "%s watches %s\n", c.name, pred)
	}

	fmt.Fprintf(w, "== %s holds the lock and releases it\n", cs[0].name)
	if err := cs[0].conn.Delete(ctx, cs[0].node, -1); err != nil {
		return err
	}
	woken := report(w, cs)
	if len(woken) != 1 || woken[0] != cs[1].name {
		return fmt.Errorf("release woke %v, want exactly %s", woken, cs[1].name)
	}

	fmt.Fprintf(w, "== %s's session expires while it holds the lock\n", cs[1].name)
	old := cs[1].conn.Session().ID
	if err := srv.Expire(old); err != nil {
		return err
	}
	woken = report(w, cs)
	want := []string{}
	if len(cs) > 2 {
		want = []string{cs[2].name}
	}
	if strings.Join(woken, ",") != strings.Join(want, ",") {
		return fmt.Errorf("expiry woke %v, want %v", woken, want)
	}
	s := cs[1].conn.Session()
	fmt.Fprintf(w, "%s now has session %#x; session %#x lost: %v (a holder must check this)\n",
		cs[1].name, s.ID, old, s.Lost(old))

	fmt.Fprintln(w, "== sequence counter at 2^31-1 (ZooKeeper 3.6+ pins it)")
	srv.SetSequence("/lock", math.MaxInt32)
	for range 2 {
		node, err := admin.Create(ctx, "/lock/n-", nil, zkapi.PersistentSequential)
		if err != nil {
			node = "err " + zkapi.Name(err)
		}
		fmt.Fprintf(w, "create /lock/n- -> %s\n", node)
	}
	return nil
}

// report prints the watches that fired and returns who woke.
func report(w io.Writer, cs []*client) []string {
	var woken []string
	for _, c := range cs {
		if c.watch == nil {
			continue
		}
		if ev, ok := firedNow(c.watch); ok {
			woken = append(woken, c.name)
			c.watch = nil
			fmt.Fprintf(w, "%s woken by %v\n", c.name, ev)
		}
	}
	sort.Strings(woken)
	fmt.Fprintf(w, "notifications: %d (%s)\n", len(woken), strings.Join(woken, ", "))
	return woken
}

func firedNow(wt zkapi.Watch) (zkapi.Event, bool) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ev, err := wt.Wait(ctx)
	return ev, err == nil
}
