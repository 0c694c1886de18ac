// Package ensemble starts real ZooKeeper servers from the installed
// ZooKeeper (Debian's zookeeper package, 3.8) on free loopback ports and
// controls each member's process: what `zksim run -ensemble N` runs on,
// and what a nemesis pauses, kills and restarts.
//
// # Model
//
// [Start] discovers java and the jars as scripts/zk.sh does (ZK_JAVA,
// default /usr/bin/java; ZK_JAVA_DIR, default /usr/share/java; or
// [Options.Java] and [Options.JarDir]), writes a zoo.cfg, a log4j
// configuration and a data directory per member under [Options.Dir] (a
// temporary directory by default, removed by [Ensemble.Stop]), starts
// one JVM per member and returns once a quorum serves: every member
// answers the srvr four-letter command with a Mode line, one "leader"
// and the others "follower" (one member: "standalone"). A member
// counts as serving only once its conf answer names its own data
// directory, so a foreign server on a port is never taken for ours.
//
// Members are numbered from 0: member i is zoo.cfg's server.(i+1), its
// files are in DIR/member<i>, [Ensemble.Addrs][i] is its client
// address. A member's process is only ever signalled through the
// *os.Process that started it (a pidfd on Linux), never by name or by
// a PID read back from a file, so a recycled PID is never signalled.
//
// # Links between members
//
// Each member has its own view of the others: its own server line has
// its real quorum and election ports; the line of every other member j
// names a loopback relay (i, j) to j's ports (peers.go), made before the
// members start and closed after they stop. So every link between two
// members passes a relay and can be cut ([Ensemble.Isolate],
// [Ensemble.Heal]) or held ([Ensemble.Lag]). ZooKeeper 3.8 calls a
// lower-id dialler back at the election address it advertises, not at
// its own config's: the relay rewrites that address to the relay
// leading back.
//
// # Invariants
//
//   - A Start that fails stops every process it started, removes the
//     temporary directory, and names the member that failed with the
//     last lines of its log. A port taken by another process between
//     choosing and binding is retried with fresh ports.
//   - [Ensemble.Stop] ends every member (SIGTERM, SIGKILL after
//     [Options.Grace]), waits for each to exit, and is idempotent and
//     safe from any goroutine; operations after it return [ErrStopped].
//   - Each JVM runs in its own process group, so a terminal's Ctrl-C
//     reaches only the Go program, which stops the servers in order;
//     on Linux each also gets SIGKILL when the Go program dies, even by
//     SIGKILL (see sysProcAttr for what is covered where).
//
// # Driving it
//
//	e, err := ensemble.Start(ctx, ensemble.Options{N: 3})
//	if err != nil { ... }
//	defer e.Stop()
//	leader, err := e.Leader(ctx)
//	err = e.Pause(leader) // SIGSTOP; the others elect a new leader
//	err = e.Resume(leader)
//	err = e.Kill(1)          // SIGKILL, waits for the exit
//	err = e.Restart(ctx, 1)  // same config; returns once it serves
//	err = e.Isolate(leader)  // cut off from the others: a new leader
//	err = e.Heal(leader)     // it rejoins
//	err = e.Lag(2, time.Second) // member 2's leader stream held: stale reads
//
// An *Ensemble is the nemesis's Members (internal/nemesis), which
// declares what it needs of one; simcli hands it over.
package ensemble
