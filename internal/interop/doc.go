// Package interop runs lock and coordination recipes that zksim does not
// own, unmodified, against the fake ZooKeeper served over TCP
// (internal/netserver), under the fault scenarios of the zoo, and records
// what each does. It has only tests:
//
//   - TestGoZKLock_*: go-zookeeper's zk.Lock (v1.0.4);
//   - TestKazooLock_*: kazoo's Lock (python3-kazoo 2.8 under
//     /usr/bin/python3, driven through scripts/kazoo-recipes-faults.py
//     --recipe lock; skipped with a one-line reason when kazoo is missing);
//   - TestZksimLock_*: zksim's own lock.Mutex over zkapi/gozk, which must
//     survive every scenario;
//   - TestKazoo_SASLWithoutJAAS: kazoo's SASL client on a server without
//     SASL ends AUTH_FAILED once its session expires, as on 3.8.0
//     (scripts/kazoo-sasl.py);
//   - TestKazooSemaphore_*, TestKazooElection_*, TestKazooBarrier_*,
//     TestKazooDoubleBarrier_*: kazoo's Semaphore, Election, Barrier and
//     DoubleBarrier (scripts/kazoo-recipes-faults.py), and
//     TestZksimSemaphore_*, TestZksimElection_*, TestZksimBarrier_*,
//     TestZksimDoubleBarrier_*: zksim's semaphore, election and barrier
//     packages, through the same scenarios; docs/recipes-under-faults.md
//     has their table.
//
// Lock scenarios, one test each per lock: 1 LostCreateReply, 2
// ConnLossListingChildren, 3 SessionExpiredWhileHolding, 4
// PredecessorExpiresBeforeWatch. Each test asserts the outcome measured, so
// a change of behaviour on either side fails it. Faults are staged at one
// exact request (Server.LoseReply, LoseRequest, Intercept) and progress is
// read off the server (WaitUntil on the Machine's watches and nodes), not
// slept for; a "hang" is a contender parked on a node that will not go and
// silent for a bounded window. docs/locks-under-faults.md has the table
// and the mechanisms.
package interop
