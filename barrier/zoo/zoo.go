package zoo

import (
	"github.com/zksim/zksim/barrier"
	"github.com/zksim/zksim/check"
)

// Recipe names, the Name of each exhibit's barrier.Recipe.
const (
	NameAssumeOnWake = "barrier/zoo/assumeonwake"
	NameNoReady      = "barrier/zoo/noready"
	NameLeaveEarly   = "barrier/zoo/leaveearly"
	NameDirLeave     = "barrier/zoo/dirleave"
	NameWaitOnError  = "barrier/zoo/waitonerror"
)

// Exhibit is one broken barrier with what a harness should find in it.
type Exhibit struct {
	// Name is Recipe.Name.
	Name   string
	Recipe barrier.Recipe
	// Origin is where the design comes from.
	Origin string
	// Bug is the defect, in one paragraph.
	Bug string
	// Violation is the class a harness run must report.
	Violation check.Class
	// Also are classes some schedules show as well.
	Also []check.Class
	// Clients is the smallest barrier (clients, all members) that shows
	// the defect; Rounds the rounds each client needs.
	Clients, Rounds int
	// Single: the defect is in the single barrier, which the harness
	// drives instead of the double one.
	Single bool

	_ struct{}
}

// Exhibits returns every exhibit, in a fixed order.
func Exhibits() []Exhibit {
	return []Exhibit{
		{
			Name: NameAssumeOnWake, Recipe: AssumeOnWake(),
			Origin: "the blog-post simplification of the recipes page's Enter: a change " +
				"of the children means the barrier is complete",
			Bug: "woken by an arrival that is not the last, a member passes Enter " +
				"with fewer than n members there",
			Violation: check.BarrierEnter, Also: []check.Class{check.Herd},
			Clients: 3, Rounds: 1,
		},
		{
			Name: NameNoReady, Recipe: NoReady(),
			Origin: `the double barrier of the ZooKeeper recipes page and its tutorials ` +
				`("create a node, getChildren with a watch, wait until there are N; ` +
				`leave: delete, wait until there are none"), without the "ready" node`,
			Bug: "a member that leaves first and enters again keeps the directory from " +
				"emptying: it waits for n members while the others wait for none; and a " +
				"member whose cleanup delete failed leaves a node the others count",
			Violation: check.Deadlock, Also: []check.Class{check.Herd, check.BarrierEnter},
			Clients: 2, Rounds: 2,
		},
		{
			Name: NameLeaveEarly, Recipe: LeaveEarly(),
			Origin: "a double barrier whose Leave is a plain delete, as when the leave " +
				"phase is taken for cleanup (Curator's leave() with a zero timeout)",
			Bug:       "a member passes Leave while others of its round are still inside",
			Violation: check.BarrierLeave,
			Clients:   2, Rounds: 1,
		},
		{
			Name: NameDirLeave, Recipe: DirLeave(),
			Origin: "the leave phase of kazoo's DoubleBarrier and of tutorials: wait on " +
				"getChildren until the round's nodes are gone",
			Bug: "every member waiting to leave watches the directory, so each " +
				"member's delete (and each arrival of the next round) wakes all of them",
			Violation: check.Herd, Also: []check.Class{check.Deadlock, check.Orphan},
			Clients: 4, Rounds: 1,
		},
		{
			Name: NameWaitOnError, Recipe: WaitOnError(),
			Origin: "single-barrier waits that read any failure of exists() as " +
				"\"no node\" (a null Stat with the error swallowed)",
			Bug:       "a waiter whose exists() fails with connection loss takes the barrier for removed and passes",
			Violation: check.BarrierWait,
			Clients:   2, Rounds: 1, Single: true,
		},
	}
}

// All returns every exhibit's Recipe, in the order of Exhibits.
func All() []barrier.Recipe {
	ex := Exhibits()
	rs := make([]barrier.Recipe, len(ex))
	for i, e := range ex {
		rs[i] = e.Recipe
	}
	return rs
}

// Lookup returns the exhibit with the given name.
func Lookup(name string) (Exhibit, bool) {
	for _, e := range Exhibits() {
		if e.Name == name {
			return e, true
		}
	}
	return Exhibit{}, false
}
