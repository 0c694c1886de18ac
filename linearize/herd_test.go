package linearize_test

import (
	"fmt"
	"testing"

	"github.com/zksim/zksim/linearize"
)

// Helpers for hand-written queue histories on /l; clients 0-based.
func enq(c int, node string, call, ret int64) linearize.QueueOp {
	return linearize.QueueOp{Kind: linearize.Enqueue, Client: c, Node: "/l/" + node, Call: call, Return: ret}
}

func deq(c int, node string, call, ret int64) linearize.QueueOp {
	return linearize.QueueOp{Kind: linearize.Dequeue, Client: c, Node: "/l/" + node, Call: call, Return: ret}
}

// wakeOn is a wake-up by the deletion of node, watched from call.
func wakeOn(c int, node string, call, ret int64) linearize.QueueOp {
	return linearize.QueueOp{Kind: linearize.Wake, Client: c, Node: "/l/" + node, Call: call, Return: ret}
}

// wakeDir is a wake-up by a child change of /l, watched from call.
func wakeDir(c int, call, ret int64) linearize.QueueOp {
	return linearize.QueueOp{Kind: linearize.Wake, Client: c, Node: "/l", Child: true, Call: call, Return: ret}
}

// queue of three: c1 holds n1, c2 waits on n2, c3 on n3.
func queueOfThree() []linearize.QueueOp {
	return []linearize.QueueOp{enq(0, "n1", 0, 1), enq(1, "n2", 1, 2), enq(2, "n3", 2, 3)}
}

// woken lists the clients (1-based) of the wake-ups Herd reports.
func woken(ops []linearize.QueueOp) string {
	var cs []int
	for _, op := range ops {
		cs = append(cs, op.Client+1)
	}
	return fmt.Sprint(cs)
}

func judge(t *testing.T, ops []linearize.QueueOp) string {
	t.Helper()
	herd, decided := linearize.Herd(ops)
	if !decided {
		t.Fatal("undecided")
	}
	return woken(herd)
}

// Each waiter watches its predecessor (the recipes page's lock): every
// release wakes one client.
func TestHerd_PredecessorWatch(t *testing.T) {
	h := append(queueOfThree(),
		deq(0, "n1", 10, 11), wakeOn(1, "n1", 4, 12),
		deq(1, "n2", 20, 21), wakeOn(2, "n2", 5, 22))
	if got := judge(t, h); got != "[]" {
		t.Fatalf("herd %s in a herd-free queue", got)
	}
}

// Every waiter watches the directory: the holder's release wakes both,
// and there is no other change either could owe its wake-up to.
func TestHerd_DirectoryWatch(t *testing.T) {
	h := append(queueOfThree(), deq(0, "n1", 10, 11), wakeDir(1, 4, 12), wakeDir(2, 5, 13))
	if got := judge(t, h); got != "[2 3]" {
		t.Fatalf("herd %s, want c2 and c3 woken by one change", got)
	}
}

// A watch fires at the first change after it was set. Two watches set
// before a release and a newcomer both fire at the first of the two; a
// watch whose setting may come after the release can be fired by the
// newcomer instead, which the search finds.
func TestHerd_FirstChangeFires(t *testing.T) {
	second := wakeDir(2, 9, 16)
	second.Set = 12 // its watch may have been set after the release
	h := append(queueOfThree(), deq(0, "n1", 10, 11), enq(3, "n4", 13, 14), wakeDir(1, 4, 15), second)
	if got := judge(t, h); got != "[]" {
		t.Fatalf("herd %s; the release could wake c2, the newcomer c3", got)
	}
	h[len(h)-1].Set = 9 // set before the release: both fire at it
	if got := judge(t, h); got != "[2 3]" {
		t.Fatalf("herd %s, want c2 and c3", got)
	}
}

// Every waiter watches the holder's node (the naive election): its
// deletion wakes both, whatever else changed meanwhile.
func TestHerd_WatchTheHolder(t *testing.T) {
	h := append(queueOfThree(), enq(3, "n4", 10, 11), deq(0, "n1", 10, 11), wakeOn(1, "n1", 4, 12), wakeOn(2, "n1", 5, 13))
	if got := judge(t, h); got != "[2 3]" {
		t.Fatalf("herd %s, want c2 and c3", got)
	}
}

// A wake-up whose watch was set after the change cannot be owed to it.
func TestHerd_WatchAfterChange(t *testing.T) {
	h := append(queueOfThree(), deq(0, "n1", 10, 11), wakeDir(1, 12, 14))
	if got := judge(t, h); got != "[2]" {
		t.Fatalf("herd %s, want c2's wake-up that no change fired", got)
	}
}

// A writer's release may wake the readers behind it that go on to hold;
// a reader that waits again counts, and with the next writer woken too
// the change woke two that count.
func TestHerd_Readers(t *testing.T) {
	reader := func(op linearize.QueueOp, proceeded bool) linearize.QueueOp {
		op.Reader, op.Proceeded = true, proceeded
		return op
	}
	h := append(queueOfThree(), enq(3, "n4", 3, 4), deq(0, "n1", 10, 11),
		reader(wakeDir(1, 4, 12), true), reader(wakeDir(2, 5, 13), true), wakeDir(3, 5, 13))
	if got := judge(t, h); got != "[]" {
		t.Fatalf("herd %s; readers that proceeded are free", got)
	}
	h[len(h)-2] = reader(wakeDir(2, 5, 13), false)
	if got := judge(t, h); got != "[3 4]" {
		t.Fatalf("herd %s, want c3 (waited again) and c4", got)
	}
	// When the change was a give-up, every reader it woke is free.
	h[4].GiveUp = true // the release of n1
	if got := judge(t, h); got != "[]" {
		t.Fatalf("herd %s after a give-up", got)
	}
}

// A client whose session was replaced, woken by the deletion of the node
// it watched while it has no node queued, woke stale: no herd. With a
// node queued it holds a place, and counts.
func TestHerd_Stale(t *testing.T) {
	stale := wakeOn(2, "n1", 5, 13)
	stale.Replaced = true
	h := []linearize.QueueOp{enq(0, "n1", 0, 1), enq(1, "n2", 1, 2), deq(0, "n1", 10, 11), wakeOn(1, "n1", 4, 12), stale}
	if got := judge(t, h); got != "[]" {
		t.Fatalf("herd %s; c3 woke stale", got)
	}
	h = append(h, enq(2, "n3", 2, 3))
	if got := judge(t, h); got != "[2 3]" {
		t.Fatalf("herd %s, want c2 and c3: c3 still had n3 queued", got)
	}
}

// Queues in two directories are judged apart: one release in each wakes
// one client in each.
func TestHerd_TwoDirectories(t *testing.T) {
	other := func(op linearize.QueueOp) linearize.QueueOp {
		op.Node = "/m" + op.Node[2:]
		if op.Child {
			op.Node = "/m"
		}
		return op
	}
	h := []linearize.QueueOp{enq(0, "n1", 0, 1), enq(1, "n2", 1, 2), other(enq(0, "n1", 0, 1)), other(enq(2, "n2", 1, 2)),
		deq(0, "n1", 10, 11), other(deq(0, "n1", 10, 11)), wakeDir(1, 4, 12), other(wakeDir(2, 4, 12))}
	if got := judge(t, h); got != "[]" {
		t.Fatalf("herd %s across two queues", got)
	}
}

// queueHistory is a queue of n acquisitions by 3 clients on /l, each
// waiter watching its predecessor (herd-free) or, if dir, the directory
// with a second client beside it (a herd).
func queueHistory(n int, dir bool) []linearize.QueueOp {
	var ops []linearize.QueueOp
	for i := range n {
		node := fmt.Sprintf("n%04d", i)
		t := int64(10 * i)
		ops = append(ops, enq(i%3, node, t, t+1), deq(i%3, node, t+25, t+26))
		if i == 0 {
			continue
		}
		w := wakeOn(i%3, fmt.Sprintf("n%04d", i-1), t+2, t+27)
		if dir {
			w = wakeDir(i%3, t+2, t+27)
		}
		w.Set = t + 3
		ops = append(ops, w)
		if dir {
			other := wakeDir((i+1)%3, t+2, t+28)
			other.Set = t + 3
			ops = append(ops, other)
		}
	}
	return ops
}

func BenchmarkHerd(b *testing.B) {
	for _, tc := range []struct {
		name string
		dir  bool
	}{{"predecessor", false}, {"directory", true}} {
		h := queueHistory(60, tc.dir)
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if herd, decided := linearize.Herd(h); !decided || (herd != nil) != tc.dir {
					b.Fatalf("herd %v, decided %v", herd, decided)
				}
			}
		})
	}
}
