// Package gozksuite runs go-zookeeper v1.0.4's own test suite, its test
// bodies unmodified from the module cache, against zksim serve: a clear
// test harness, with no code of its own outside its tests.
//
// TestSuite_Serve copies the module's package into a temporary directory,
// swaps its Java cluster starter (server_help_test.go and
// server_java_test.go) for testdata/zksim_cluster_test.go, which offers
// the same TestCluster API over one `zksim serve -followers N-1` process
// per cluster (members stopped and started through the control
// interface), runs `go test -json` there, and compares each test's result
// with testdata/real.txt: what the real 3.8.0 server gave with the
// module's own harness. Every test that passes on the real server must
// pass on serve (waitingFor, now empty, may name an exception and its
// reason).
//
// TestSuite_Real (ZKSIM_GOZK_REAL=1) runs the package with its own Java
// harness against Debian's ZooKeeper (ZOOKEEPER_BIN_PATH, default
// /usr/share/zookeeper/bin), changed in one call: the harness waits for
// its servers with FLWSrvr, whose version pattern rejects Debian's version
// string, so it would never see a server up; testdata/zksim_realwait_test.go
// asks srvr the same question without parsing the version. With -args
// -update it rewrites testdata/real.txt.
//
// Both skip, with the reason, when the Go toolchain or the module cannot
// be had; neither passes without running the suite.
package gozksuite
