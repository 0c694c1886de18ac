package zoo

import (
	"github.com/zksim/zksim/check"
)

// Barrier recipe names, the Name of each barrier exhibit's
// recipe.Barrier. They keep the "barrier/zoo/" prefix of the package the
// barrier exhibits came from: trace files name their recipe.
const (
	NameBarrierAssumeOnWake = "barrier/zoo/assumeonwake"
	NameNoReady             = "barrier/zoo/noready"
	NameLeaveEarly          = "barrier/zoo/leaveearly"
	NameDirLeave            = "barrier/zoo/dirleave"
	NameWaitOnError         = "barrier/zoo/waitonerror"
)

// Barriers returns the barrier exhibits, in a fixed order: those whose
// Barrier is set, which harness.Barrier drives.
func Barriers() []Exhibit {
	return []Exhibit{
		{
			Name: NameBarrierAssumeOnWake, Barrier: barrierAssumeOnWake(),
			Origin: "the blog-post simplification of the recipes page's Enter: a change " +
				"of the children means the barrier is complete",
			Bug: "woken by an arrival that is not the last, a member passes Enter " +
				"with fewer than n members there",
			Violation: check.BarrierEnter, Also: []check.Class{check.Herd},
			Clients: 3, Rounds: 1,
		},
		{
			Name: NameNoReady, Barrier: noReady(),
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
			Name: NameLeaveEarly, Barrier: leaveEarly(),
			Origin: "a double barrier whose Leave is a plain delete, as when the leave " +
				"phase is taken for cleanup (Curator's leave() with a zero timeout)",
			Bug:       "a member passes Leave while others of its round are still inside",
			Violation: check.BarrierLeave,
			Clients:   2, Rounds: 1,
		},
		{
			Name: NameDirLeave, Barrier: dirLeave(),
			Origin: "the leave phase of kazoo's DoubleBarrier and of tutorials: wait on " +
				"getChildren until the round's nodes are gone",
			Bug: "every member waiting to leave watches the directory, so each " +
				"member's delete (and each arrival of the next round) wakes all of them",
			Violation: check.Herd, Also: []check.Class{check.Deadlock, check.Orphan},
			Clients: 4, Rounds: 1,
		},
		{
			Name: NameWaitOnError, Barrier: waitOnError(),
			Origin: "single-barrier waits that read any failure of exists() as " +
				"\"no node\" (a null Stat with the error swallowed)",
			Bug:       "a waiter whose exists() fails with connection loss takes the barrier for removed and passes",
			Violation: check.BarrierWait,
			Clients:   2, Rounds: 1, Single: true,
		},
	}
}
