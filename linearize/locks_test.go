package linearize_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zksim/zksim/linearize"
)

// disjoint holds two locks: c1 then c2 on /l, c3 on /other.
var disjoint = []linearize.Hold{
	{Client: 0, Lock: "/l", Call: 0, Start: 1, End: 3},
	{Client: 1, Lock: "/l", Call: 0, Start: 4, End: 6},
	{Client: 2, Lock: "/other", Call: 0, Start: 2, End: 5},
}

// Locks returns the two holds that overlap, the earlier first, and
// nothing for a linearizable history.
func TestLocks_Overlap(t *testing.T) {
	if over := linearize.Locks(disjoint, 1); over != nil {
		t.Fatalf("disjoint holds reported: %v", over)
	}
	bad := append(disjoint, linearize.Hold{Client: 3, Lock: "/l", Call: 0, Start: 2, End: 5})
	over := linearize.Locks(bad, 1)
	if got := fmt.Sprint(over); got != "[{0 /l exclusive 0 1 3 0 false} {3 /l exclusive 0 2 5 0 false}]" {
		t.Fatalf("Locks = %s, want c1's and c4's holds", got)
	}
}

// With n leases Locks returns the n+1 holds held at once, by Start; a
// read takes no lease.
func TestLocks_Leases(t *testing.T) {
	holds := []linearize.Hold{
		{Client: 0, Lock: "/s", Start: 1, End: 5},
		{Client: 1, Lock: "/s", Start: 2, End: 6},
		{Client: 2, Lock: "/s", Start: 5, End: 7}, // takes c1's lease as it ends
		{Client: 3, Lock: "/s", Mode: linearize.Read, Start: 2, End: 3},
	}
	if over := linearize.Locks(holds, 2); over != nil {
		t.Fatalf("two leases at once reported: %v", over)
	}
	holds = append(holds, linearize.Hold{Client: 5, Lock: "/s", Start: 3, End: 3})
	var who []int
	for _, h := range linearize.Locks(holds, 2) {
		who = append(who, h.Client)
	}
	if fmt.Sprint(who) != "[0 1 5]" {
		t.Fatalf("held at once: clients %v, want [0 1 5]", who)
	}
}

// The timeline is porcupine's page of the failing lock's history; a
// linearizable history has none.
func TestWriteHTML_Timeline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "timeline.html")
	if err := linearize.WriteHTML(disjoint, 1, path); err == nil {
		t.Fatal("a linearizable history drew a timeline")
	}
	bad := append(disjoint, linearize.Hold{Client: 3, Lock: "/l", Call: 0, Start: 2, End: 5})
	if err := linearize.WriteHTML(bad, 1, path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "<html") {
		t.Fatal("no HTML written")
	}
	if strings.Contains(string(b), "/other") {
		t.Fatal("the timeline shows a lock that did not fail")
	}
}

// A semaphore's timeline shows its holders at once.
func TestWriteHTML_Semaphore(t *testing.T) {
	three := []linearize.Hold{
		{Client: 0, Lock: "/s", Start: 1, End: 5},
		{Client: 1, Lock: "/s", Start: 2, End: 6},
		{Client: 2, Lock: "/s", Start: 5, End: 7},
		{Client: 3, Lock: "/s", Mode: linearize.Read, Start: 2, End: 3},
		{Client: 4, Lock: "/other", Start: 2, End: 6},
		{Client: 5, Lock: "/s", Start: 3, End: 3}, // a third lease at once
	}
	path := filepath.Join(t.TempDir(), "timeline.html")
	if err := linearize.WriteHTML(three, 2, path); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "held by c1 c2") {
		t.Fatal("no semaphore timeline written")
	}
}
