// Package zoo holds zksim's recipes as the descriptors its harness checks
// them by: the good ones (Mutex, ReentrantMutex, MultiMutex, RWMutex,
// Semaphore, Election, DoubleBarrier), built from the public API of
// packages lock, rwlock, semaphore, election and barrier, and a
// collection of classic, broken ZooKeeper recipes of every kind zksim
// checks (lock, read/write lock, leader election, counting semaphore,
// barrier), each a Go transcription of a well-known design, kept to prove
// that zksim's harness finds what is wrong with them. All are
// recipe.Lock or recipe.Barrier values, so a harness run, or a user's
// own, checks the broken ones exactly as it checks the good ones, and a
// user's own recipe as it checks zksim's.
//
// Exhibits lists every exhibit, Locks and Barriers those of one kind
// (Exhibit.Recipe or Exhibit.Barrier set), and Lookup finds one by its
// recipe's name. The zoo is a package of its own, not part of the leaf
// recipe nor of any one recipe's package, because it spans all kinds and
// names its verdicts in package check's classes.
//
// # The lock-family exhibits
//
//	recipe                 design                                    violation
//	zoo/dirwatch           queue lock watching the directory         herd
//	zoo/singlenode         one ephemeral node "<dir>/lock"           herd
//	zoo/herdshared         read/write lock watching the directory    herd
//	zoo/noguidretry        blind create retry after connection loss  deadlock
//	zoo/assumeonwake       predecessor's deletion taken as the grant mutual-exclusion
//	zoo/existsabsence      exists(predecessor) null taken as grant   mutual-exclusion
//	zoo/timeoutleak        timed acquire forgets its node            deadlock
//	zoo/deletefirstchild   release deletes the first child           mutual-exclusion
//	zoo/splitdash          orders by the wrong '-' field of names    mutual-exclusion
//	zoo/gozk               go-zookeeper v1.0.4's zk.Lock             orphan
//	zoo/adoptdying         lost create found by name, any owner      mutual-exclusion
//	zoo/electherd          election, followers watch the leader      herd
//	zoo/electcached        election, term cached when joining        shared-term
//	zoo/electunfenced      election, the leader's writes unfenced    fencing
//	zoo/semmixedmax        semaphore trusting each client's N        max-leases
//	zoo/semdirwatch        semaphore watching the directory          herd
//	zoo/semtimeoutleak     timed semaphore acquire forgets its node  orphan
//
// Locks lists them with their origin, defect, the docs/zk-semantics.md bug
// scenarios they map to and the violation class a harness must report.
// Each exhibit's constructor (in this package's source) says where the
// design comes from and exactly when its defect bites.
//
// # One defect each
//
// Every exhibit but three is the queue that lock.Mutex and rwlock run
// (internal/queue), with exactly one of its steps (queue.Steps) replaced
// by the defect: the planted bug is the diff, and a harness finding
// something else in it has found a bug of its own or of the good lock.
// The steps are: the lookup of a lost create (FindLost) and its ownership
// test (Owns), the queue order (Order), the wait on the node the rule
// names (Watch), what a failed wait does with the node (Abandon), and the
// release (Release). Each exhibit's constructor names its step, and
// TestVariants_OneStepSwapped checks that nothing else differs.
//
// The three election exhibits are recipe.Locks with Terms set, so that a
// harness checks their terms too (check.SharedTerm, check.TermOrder). Each is the good election
// of package election, itself the queue with the exclusive rule, with one
// part swapped: the rule (whom a follower watches), the term, or the
// leader's fenced write; TestElectVariants_OnePartSwapped checks it.
// Their Helds have Token (the term) and, but for zoo/electunfenced's, Fenced.
//
// The semaphore exhibits (Recipe.Leases 2) are the queue under a counting
// rule: the first N members hold, a waiter watches its predecessor (a
// correct but slow semaphore: a lease freed ahead of the predecessor
// waits for the predecessor to change; package semaphore is the good
// one). zoo/semdirwatch and zoo/semtimeoutleak swap one step of it; zoo/semmixedmax's
// defect is the rule itself, each client counting with its own N.
//
// zoo/singlenode has no queue at all (one fixed node, losers racing on
// create), so it carries its own create loop (with the inherent window its
// doc describes); zoo/gozk is go-zookeeper's code transcribed as it is,
// with all its defects. Neither is a variant of the queue.
//
// # The barrier exhibits
//
//	recipe                    design                                          violation
//	barrier/zoo/assumeonwake  any change of the children taken as complete    barrier-enter
//	barrier/zoo/noready       the recipes page's double barrier, no "ready"   deadlock
//	barrier/zoo/leaveearly    Leave deletes its node and returns at once      barrier-leave
//	barrier/zoo/dirleave      Leave waits on the directory's children         herd
//	barrier/zoo/waitonerror   single barrier: a failed exists() means gone    barrier-wait
//
// Barriers lists them with their origin, defect, the violation class a
// harness must report and the smallest barrier that shows it. The last
// three are the good barriers (package barrier) with one part replaced
// (Leave, or the single barrier's Wait), so the planted bug is the diff,
// which TestBarrierVariants_OnePartSwapped checks; the first two are the
// classic design as the ZooKeeper recipes page and many tutorials give
// it, less the "ready" node, which the page adds so that members need
// not count (and which, never removed, makes the next round pass at
// once: Netflix/curator#99), and, for the first, less the recount after
// a wake-up. Their names keep the "barrier/zoo/" prefix of the package
// they came from, as trace files name them.
//
// # Determinism
//
// Node names derive only from the holder id passed to Acquire (node data
// is the id too), so the same schedule gives the same names. The recipes
// start no goroutines or timers and read no clock: every wait is a zkapi
// call taking ctx (a request, Watch.Wait or Conn.WaitSession), so the
// simulator can order everything they do. The queue variants create a
// missing lock directory as the good lock does (a container, with
// persistent parents); zoo/singlenode and zoo/gozk with persistent nodes, as
// those designs did before containers. The lock exhibits' Helds offer
// neither Token nor Fenced: the originals had no fencing. zoo/electcached
// keeps its counter beside the directory, a persistent "<dir>-term".
package zoo
