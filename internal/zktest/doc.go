// Package zktest runs tests against real ZooKeeper servers and forces the
// faults that zksim's fake must reproduce: connection loss and leader
// failover (session expiry: package expire).
//
// # Finding the servers
//
// Tests never start servers themselves; scripts/zk.sh does, and two
// environment variables tell the tests where they are:
//
//   - [EnvStandalone] (ZKSIM_ZK_STANDALONE): comma-separated client
//     addresses of a standalone server, e.g. "127.0.0.1:40123".
//   - [EnvEnsemble] (ZKSIM_ZK_ENSEMBLE): the state directory of an ensemble
//     started by "scripts/zk.sh start DIR 3". Besides the addresses it holds
//     each server's PID, which is what [Cluster.Kill] signals.
//   - [EnvExtended] (ZKSIM_ZK_EXTENDED): the client address of a standalone
//     server with TTL nodes on and its reaper every second, started with
//     ZK_JVMFLAGS="-Dzookeeper.extendedTypesEnabled=true
//     -Dznode.container.checkIntervalMs=1000" scripts/zk.sh start DIR 1.
//   - [EnvSASL] (ZKSIM_ZK_SASL): the client address of a standalone server
//     with SASL DIGEST-MD5 users, started with
//     ZK_JAAS=internal/netserver/testdata/jaas.conf scripts/zk.sh start DIR 1.
//
// [Standalone] and [Ensemble] skip the calling test, with a one-line reason,
// when their variable is unset, so "go test ./..." passes without Java. To
// run the same tests against your own ensemble, start it with scripts/zk.sh
// and export the variables:
//
//	scripts/zk.sh start /tmp/zk1 1
//	scripts/zk.sh start /tmp/zk3 3
//	ZKSIM_ZK_STANDALONE=$(cat /tmp/zk1/addrs) ZKSIM_ZK_ENSEMBLE=/tmp/zk3 go test -race ./...
//	scripts/zk.sh stop /tmp/zk1; scripts/zk.sh stop /tmp/zk3
//
// Servers are numbered from 1, as in zoo.cfg's server.N lines and in
// scripts/zk.sh; Cluster.Addrs[i-1] is server i's client address.
//
// # Faults
//
// Session expiry on demand is package expire's (a product feature: zksim
// run -faults expire=N uses it): pass an expire.Capture to go-zookeeper as
// zk.WithDialer(capture.Dial), then capture.Kill(ctx, sessionID) ends the
// session as the server would on expiry. Stopping a server with SIGSTOP
// does not expire sessions reliably, which is why that exists.
//
// Connection loss comes from a [Proxy] between client and server: Stall
// stops forwarding bytes while keeping both sockets open (the client times
// out on its own, as on a partition), Disconnect closes the connections
// (the client sees the loss at once).
//
// Leader failover: [Cluster.Leader] asks each server's srvr four-letter
// command for its Mode, [Cluster.Kill] sends SIGKILL to the leader's recorded
// PID, [Cluster.WaitLeader] polls until a new leader serves, and
// [Cluster.Restart] brings the killed server back through scripts/zk.sh.
package zktest
