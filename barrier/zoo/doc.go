// Package zoo is a collection of broken ZooKeeper barrier recipes, kept
// to prove that zksim's harness finds what is wrong with them, as
// lock/zoo is for locks. They are barrier.Recipe values, so a harness run
// checks them exactly as it checks the good one (barrier.DoubleRecipe).
//
// # The exhibits
//
//	recipe                    design                                          violation
//	barrier/zoo/assumeonwake  any change of the children taken as complete    barrier-enter
//	barrier/zoo/noready       the recipes page's double barrier, no "ready"   deadlock
//	barrier/zoo/leaveearly    Leave deletes its node and returns at once      barrier-leave
//	barrier/zoo/dirleave      Leave waits on the directory's children         herd
//	barrier/zoo/waitonerror   single barrier: a failed exists() means gone    barrier-wait
//
// Exhibits lists them with their origin, defect and the violation class a
// harness must report. The last three are the good barriers (package
// barrier) with one step replaced, so the planted bug is the diff; the
// first two are the classic design as the ZooKeeper recipes page and
// many tutorials give it, less the "ready" node, which the page adds so
// that members need not count (and which, never removed, makes the next
// round pass at once: Netflix/curator#99), and, for the first, less the
// recount after a wake-up.
package zoo
