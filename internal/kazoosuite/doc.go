// Package kazoosuite runs kazoo 2.8's own test suite (Debian's
// python3-kazoo, its tests under kazoo/tests), unmodified, against zksim
// serve, and on the real server with kazoo's own harness: a test harness,
// with no code of its own outside its tests.
//
// TestSuite_Serve builds zksim, then runs pytest on kazoo's installed
// tests with testdata/zksim_kazoo_shim.py loaded as a plugin (-p). The
// plugin replaces kazoo.testing.harness.get_global_cluster, and nothing
// else, so that the harness's cluster is one `zksim serve -followers 2`
// process (kazoo's default ZOOKEEPER_CLUSTER_SIZE=3) configured as kazoo
// configures its Java servers (reconfigEnabled, the super digest,
// maxClientCnxns=0, tickTime 2000, and for test_sasl the JAAS file of
// SASL users, which the shim reads out of kazoo's harness), whose
// members the tests stop and start through serve's control interface. kazoo's expire_session and
// lose_connection break the connection inside the client, so they need
// nothing of the server. Each test's outcome, from pytest's JUnit XML, is
// compared with testdata/real.txt: every test that passes on the real
// server must pass on serve, except those in knownDifferences, each with
// its cause (a documented limit of the fake).
//
// TestSuite_Real (ZKSIM_KAZOO_REAL=1) runs the same tests with kazoo's own
// harness against Debian's ZooKeeper 3.8.0: ZOOKEEPER_CLASSPATH from the
// jars in ZK_JAVA_DIR (default /usr/share/java; as scripts/zk.sh),
// ZOOKEEPER_VERSION=3.8.0 and ZOOKEEPER_PORT_OFFSET on a free block of
// ports. On either server a test that fails is run once more on its own,
// and counts as passed if it passes then, logged as such: kazoo's own
// tests have timing races that a loaded machine exposes (a JVM restarted
// under load can miss a test's few seconds; once, on serve, with the
// whole module's tests running beside it, TestSemaphore's
// test_handle_session_loss hung). With pytest-timeout installed a test
// that hangs fails after 120 s instead of stopping the run. With -update it
// rewrites testdata/real.txt. ZKSIM_KAZOO_OUT=DIR keeps pytest's output
// and JUnit XML of either run in DIR.
//
// Both need /usr/bin/python3 with kazoo, pytest, mock and objgraph
// (scripts/install-zookeeper.sh installs them) and skip, with the reason,
// without them.
package kazoosuite
