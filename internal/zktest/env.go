package zktest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The environment variables that point tests at real servers.
const (
	// EnvStandalone holds the comma-separated client addresses of a
	// standalone server.
	EnvStandalone = "ZKSIM_ZK_STANDALONE"
	// EnvEnsemble holds the state directory of an ensemble started with
	// "scripts/zk.sh start DIR N".
	EnvEnsemble = "ZKSIM_ZK_ENSEMBLE"
	// EnvExtended holds the client address of a standalone server started
	// with TTL nodes on and a fast reaper:
	// ZK_JVMFLAGS="-Dzookeeper.extendedTypesEnabled=true
	// -Dznode.container.checkIntervalMs=1000" scripts/zk.sh start DIR 1.
	EnvExtended = "ZKSIM_ZK_EXTENDED"
	// EnvSASL holds the client address of a standalone server started
	// with SASL: ZK_JAAS=internal/netserver/testdata/jaas.conf
	// scripts/zk.sh start DIR 1.
	EnvSASL = "ZKSIM_ZK_SASL"
)

// Standalone returns the addresses in EnvStandalone, or skips t when it is
// unset or empty.
func Standalone(t testing.TB) []string {
	t.Helper()
	addrs := splitAddrs(os.Getenv(EnvStandalone))
	if len(addrs) == 0 {
		t.Skipf("real ZooKeeper not configured: set %s (the README test command does)", EnvStandalone)
	}
	return addrs
}

// Extended returns the address in EnvExtended, or skips t when it is unset
// or empty.
func Extended(t testing.TB) string {
	t.Helper()
	return firstAddr(t, EnvExtended, "with extended types")
}

// SASL returns the address in EnvSASL, or skips t when it is unset or
// empty.
func SASL(t testing.TB) string {
	t.Helper()
	return firstAddr(t, EnvSASL, "with SASL users")
}

// firstAddr returns the first address in the variable env, or skips t,
// naming the server (what) it wanted.
func firstAddr(t testing.TB, env, what string) string {
	t.Helper()
	addrs := splitAddrs(os.Getenv(env))
	if len(addrs) == 0 {
		t.Skipf("real ZooKeeper %s not configured: set %s", what, env)
	}
	return addrs[0]
}

// Ensemble returns the cluster whose state directory EnvEnsemble names, or
// skips t when it is unset. A directory that is set but unreadable fails t.
func Ensemble(t testing.TB) *Cluster { return ensemble(t, false) }

// EnsembleExclusive is Ensemble for a test that disrupts the ensemble
// (kills or restarts servers): it waits until no other test, in any test
// process, uses the ensemble, and keeps them out until it ends. Ensemble
// holds a shared lock on the same file for its test's duration. A test must
// not call both.
func EnsembleExclusive(t testing.TB) *Cluster { return ensemble(t, true) }

func ensemble(t testing.TB, exclusive bool) *Cluster {
	t.Helper()
	dir := os.Getenv(EnvEnsemble)
	if dir == "" {
		t.Skipf("real ZooKeeper ensemble not configured: set %s (the README test command does)", EnvEnsemble)
	}
	c, err := openCluster(dir)
	if err != nil {
		t.Fatalf("%s=%s: %v", EnvEnsemble, dir, err)
	}
	// Test packages run in parallel processes; a killed leader must not
	// surprise another package's test.
	lockFile(t, filepath.Join(dir, "tests.lock"), exclusive)
	return c
}

// openCluster reads the state directory that "scripts/zk.sh start DIR N"
// wrote.
func openCluster(dir string) (*Cluster, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("zktest: cluster %s: %w", dir, err)
	}
	b, err := os.ReadFile(filepath.Join(abs, "addrs"))
	if err != nil {
		return nil, fmt.Errorf("zktest: cluster %s (not started by scripts/zk.sh?): %w", dir, err)
	}
	addrs := splitAddrs(string(b))
	if len(addrs) == 0 {
		return nil, fmt.Errorf("zktest: cluster %s: empty addrs file", dir)
	}
	return &Cluster{Dir: abs, Addrs: addrs}, nil
}

func splitAddrs(s string) []string {
	var addrs []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			addrs = append(addrs, a)
		}
	}
	return addrs
}
