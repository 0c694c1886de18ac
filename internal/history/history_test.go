package history_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/history"
	"github.com/zksim/zksim/zkapi"
)

// counter is a fake clock: 1, 2, 3, ... per reading.
func counter() func() int64 {
	var t int64
	return func() int64 { t++; return t }
}

// queueOfThree records c1 holding /l, c2 and c3 queued behind it and
// watching what watch sets for each; then c1 releases, c2's Wait
// returns, c2 releases, c3's Wait returns and c3 releases. fakezk fires
// watches as the change applies.
func queueOfThree(t *testing.T, watch func(ctx context.Context, c zkapi.Conn, own, prev string) zkapi.Watch) []history.Entry {
	ctx := context.Background()
	srv := fakezk.MustServer(fakezk.Config{})
	rec := history.New(counter())
	var conns []zkapi.Conn
	var nodes []string
	for i := range 3 {
		raw, err := srv.Connect(fakezk.ConnOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c := rec.Conn(i, raw)
		if i == 0 {
			if _, err := c.Create(ctx, "/l", nil, zkapi.Persistent); err != nil {
				t.Fatal(err)
			}
		}
		n, err := c.Create(ctx, "/l/n-", nil, zkapi.EphemeralSequential)
		if err != nil {
			t.Fatal(err)
		}
		conns, nodes = append(conns, c), append(nodes, n)
	}
	w2, w3 := watch(ctx, conns[1], nodes[1], nodes[0]), watch(ctx, conns[2], nodes[2], nodes[1])
	for i, w := range []zkapi.Watch{w2, w3} {
		if err := conns[i].Delete(ctx, nodes[i], -1); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := conns[2].Delete(ctx, nodes[2], -1); err != nil {
		t.Fatal(err)
	}
	return rec.Entries()
}

func childWatch(ctx context.Context, c zkapi.Conn, _, _ string) zkapi.Watch {
	_, _, w, _ := c.ChildrenW(ctx, "/l")
	return w
}

func predecessorWatch(ctx context.Context, c zkapi.Conn, _, prev string) zkapi.Watch {
	_, _, w, _ := c.ExistsW(ctx, prev)
	return w
}

// The recorder keeps each call and return, and each Wait and the event
// it returned, per client, at the clock's times.
func TestRecorder_Entries(t *testing.T) {
	var lines []string
	for _, e := range queueOfThree(t, childWatch)[8:] {
		lines = append(lines, e.String())
	}
	want := `9 c2 call childrenw /l
10 c2 return childrenw /l
11 c3 call childrenw /l
12 c3 return childrenw /l
13 c1 call delete /l/n-0000000000
14 c1 return delete /l/n-0000000000
15 c2 wait /l
16 c2 woken /l NodeChildrenChanged /l
17 c2 call delete /l/n-0000000001
18 c2 return delete /l/n-0000000001
19 c3 wait /l
20 c3 woken /l NodeChildrenChanged /l
21 c3 call delete /l/n-0000000002
22 c3 return delete /l/n-0000000002`
	if got := strings.Join(lines, "\n"); got != want {
		t.Fatalf("entries:\n%s\nwant:\n%s", got, want)
	}
}

// From the recorded history, the queue check finds the herd of waiters
// watching the directory, and none when each watches its predecessor.
func TestQueue_HerdFromRecording(t *testing.T) {
	ops := history.Queue(queueOfThree(t, childWatch), []string{"/l"})
	vs := checkers.QueueHerd(ops)
	if len(vs) != 1 || vs[0].Class != check.Herd || !strings.Contains(vs[0].Cause, "c2 and c3") {
		t.Fatalf("directory watch: %v, want a herd of c2 and c3 (ops %v)", vs, ops)
	}
	ops = history.Queue(queueOfThree(t, predecessorWatch), []string{"/l"})
	if vs := checkers.QueueHerd(ops); vs != nil {
		t.Fatalf("predecessor watch: %v", vs)
	}
	if n := fmt.Sprint(len(ops)); n != "8" { // three enqueues, three dequeues, two wake-ups
		t.Fatalf("%s queue ops, want 8: %v", n, ops)
	}
}

// A create whose reply was lost made a node of a name the client never
// learned: a listing that shows a node of its name places the create
// before that listing returned, and its end stays open (a maybe
// dequeue). Seen in no listing, it stays a possible node under no name,
// open until the client's next listing.
func TestQueue_LostCreate(t *testing.T) {
	loss := fmt.Errorf("create: %w", zkapi.ErrConnectionLoss)
	entries := []history.Entry{
		{At: 1, Client: 0, Kind: history.Call, ID: 1, Op: "create", Path: "/l/n-", Mode: zkapi.EphemeralSequential},
		{At: 2, Client: 0, Kind: history.Return, ID: 1, Op: "create", Path: "/l/n-", Err: loss},
		{At: 3, Client: 1, Kind: history.Call, ID: 2, Op: "children", Path: "/l"},
		{At: 4, Client: 1, Kind: history.Return, ID: 2, Op: "children", Path: "/l", Names: []string{"n-0000000000"}},
	}
	got := fmt.Sprint(history.Queue(entries, []string{"/l"}))
	if want := "[{0 0 /l/n-0000000000 false false false false false false false false [] 1 4 0 {}} " +
		"{1 0 /l/n-0000000000 false true true false false false false false [] 1 4611686018427387904 0 {}}]"; got != want {
		t.Fatalf("resolved lost create:\n%s\nwant\n%s", got, want)
	}
	entries[3].Names = nil
	entries = append(entries,
		history.Entry{At: 5, Client: 0, Kind: history.Call, ID: 3, Op: "children", Path: "/l"},
		history.Entry{At: 6, Client: 0, Kind: history.Return, ID: 3, Op: "children", Path: "/l"})
	got = fmt.Sprint(history.Queue(entries, []string{"/l"}))
	if want := "[{0 0 /l/?lost-1 false false true false false false false false [] 1 6 0 {}} " +
		"{1 0 /l/?lost-1 false true true false false false false false [] 1 6 0 {}}]"; got != want {
		t.Fatalf("unresolved lost create:\n%s\nwant\n%s", got, want)
	}
}
