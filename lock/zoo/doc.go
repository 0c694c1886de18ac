// Package zoo is a collection of classic, broken ZooKeeper lock recipes,
// each a Go transcription of a well-known design, kept to prove that
// zksim's harness finds what is wrong with them. They are lock.Recipe
// values, so a harness run, or a user's own, can check them exactly as it
// checks the good recipes (lock.MutexRecipe, rwlock.Recipe).
//
// # The exhibits
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
//
// Exhibits lists them with their origin, defect, the ZK-SEMANTICS.md bug
// scenarios they map to and the violation class a harness must report;
// All lists the recipes in the same order. Each constructor's doc comment
// says where the design comes from and exactly when its defect bites.
//
// # One defect each
//
// Except for GoZKLock, which is go-zookeeper's code as it is, every
// exhibit carries one planted defect and is otherwise correct, so that a
// harness finding something else in it has found a bug of its own or of
// the exhibit (SingleNode also has the inherent window its doc
// describes): a lost create is looked up by name, data and
// ephemeralOwner, after a sync; children are ordered by sequence number
// (where the original design did so), foreign names are ignored, and a
// sequence number at 2^31-1 is refused; a listing that puts the node
// first grants only while the node's session is still the client's (the
// queue recipes); requests are retried through connection loss, after
// waiting for the link to come back; an Acquire that fails or whose ctx
// ends removes its node, and Release deletes the holder's own node. Like lock.Mutex's cleanup, that removal and the
// lookup of a lost create outlive ctx: they end when the node is gone or
// its session is.
//
// # Determinism
//
// Node names derive only from the holder id passed to Acquire (node data
// is the id too), so the same schedule gives the same names. The recipes
// start no goroutines or timers and read no clock: every wait is a zkapi
// call taking ctx (a request, Watch.Wait or Conn.WaitSession), so the
// simulator can order everything they do. A missing lock directory is
// created with persistent nodes, as these designs did before containers.
// The Helds offer neither Token nor Fenced: the originals had no fencing.
package zoo
