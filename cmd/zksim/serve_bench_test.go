package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// The serve benchmarks put zksim serve and Debian's ZooKeeper 3.8 side by
// side, each in its own process, through the same go-zookeeper client over
// loopback: the time from process start to the first session, and
// create+delete pairs. scripts/bench.sh reports the ratios.

// serverProc starts one server process listening on addr.
type serverProc func(b *testing.B, dir, addr string) *exec.Cmd

var serverProcs = []struct {
	name  string
	start serverProc
	check func(b *testing.B) string // "" or a reason to skip
}{
	{"zksim", startZksim, func(*testing.B) string { return "" }},
	{"real", startReal, realMissing},
}

func BenchmarkServeStartup(b *testing.B) {
	for _, p := range serverProcs {
		b.Run(p.name, func(b *testing.B) {
			if why := p.check(b); why != "" {
				b.Skip(why)
			}
			dir := b.TempDir()
			prepare(b, p.name, dir)
			for i := 0; b.Loop(); i++ {
				addr := freeAddr(b)
				sub := filepath.Join(dir, fmt.Sprint(i))
				cmd := p.start(b, sub, addr)
				firstSession(b, addr)
				b.StopTimer()
				stop(cmd)
				b.StartTimer()
			}
		})
	}
}

func BenchmarkServeCreateDelete(b *testing.B) {
	for _, p := range serverProcs {
		b.Run(p.name, func(b *testing.B) {
			if why := p.check(b); why != "" {
				b.Skip(why)
			}
			dir := b.TempDir()
			prepare(b, p.name, dir)
			addr := freeAddr(b)
			cmd := p.start(b, filepath.Join(dir, "s"), addr)
			defer stop(cmd)
			firstSession(b, addr)
			conn := dial(b, addr)
			defer conn.Close()
			acl := zk.WorldACL(zk.PermAll)
			for b.Loop() {
				if _, err := conn.Create("/bench", nil, 0, acl); err != nil {
					b.Fatal(err)
				}
				if err := conn.Delete("/bench", -1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
}

// zksimBin is the zksim binary the benchmarks start, built once into a
// directory TestMain removes.
var zksimBin, binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func prepare(b *testing.B, name, dir string) {
	if name != "zksim" || zksimBin != "" {
		return
	}
	var err error
	if binDir, err = os.MkdirTemp("", "zksim-bench"); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(binDir, "zksim")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	zksimBin = bin
}

func startZksim(b *testing.B, dir, addr string) *exec.Cmd {
	cmd := exec.Command(zksimBin, "serve", "-addr", addr, "-control", "off", "-tick", "500")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return cmd
}

const javaDir = "/usr/share/java"

func realMissing(*testing.B) string {
	if _, err := os.Stat(filepath.Join(javaDir, "zookeeper.jar")); err != nil {
		return "no Debian zookeeper package (" + javaDir + "/zookeeper.jar); scripts/bench.sh installs it"
	}
	if _, err := exec.LookPath("java"); err != nil {
		return "no java on PATH"
	}
	return ""
}

// startReal runs ZooKeeper standalone as scripts/zk.sh does (same config,
// same JVM flags), logging to a file.
func startReal(b *testing.B, dir, addr string) *exec.Cmd {
	_, port, _ := net.SplitHostPort(addr)
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		b.Fatal(err)
	}
	cfg := fmt.Sprintf("tickTime=500\ndataDir=%s/data\nclientPort=%s\nclientPortAddress=127.0.0.1\n"+
		"admin.enableServer=false\nforceSync=no\nmaxClientCnxns=0\n", dir, port)
	log4j := fmt.Sprintf("log4j.rootLogger=INFO, FILE\nlog4j.appender.FILE=org.apache.log4j.FileAppender\n"+
		"log4j.appender.FILE.File=%s/log\nlog4j.appender.FILE.layout=org.apache.log4j.PatternLayout\n", dir)
	for name, text := range map[string]string{"zoo.cfg": cfg, "log4j.properties": log4j} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cp := javaDir + "/zookeeper.jar:" + javaDir + "/slf4j-log4j12.jar:" + javaDir + "/log4j-1.2.jar"
	cmd := exec.Command("java", "-Xms32m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-cp", cp, "-Dlog4j.configuration=file:"+dir+"/log4j.properties", "-Dzookeeper.jmx.log4j.disable=true",
		"org.apache.zookeeper.server.quorum.QuorumPeerMain", filepath.Join(dir, "zoo.cfg"))
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return cmd
}

// stop kills a server this benchmark started, by its PID, and reaps it.
func stop(cmd *exec.Cmd) {
	cmd.Process.Kill()
	cmd.Wait()
}

// freeAddr picks a loopback port nothing listens on now, below the
// kernel's ephemeral range: polling a port in that range for a server
// still starting can connect the poller to itself (TCP simultaneous open),
// which then holds the port the server wants.
func freeAddr(b *testing.B) string {
	low := 32768
	if f, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		fmt.Sscan(string(f), &low)
	}
	for port := 10000 + os.Getpid()%5000; port < low; port += 7 {
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		if l, err := net.Listen("tcp", addr); err == nil {
			l.Close()
			if !used[addr] {
				used[addr] = true
				return addr
			}
		}
	}
	b.Fatal("no free port below the ephemeral range")
	return ""
}

// used keeps a run from reusing a port a killed server may still hold.
var used = map[string]bool{}

// firstSession polls addr with a raw ConnectRequest until the server
// grants a session: every millisecond at first, backing off to every 20 ms
// so that a JVM still starting is not slowed by a flood of refused
// sessions (each one a log line). (go-zookeeper itself is no good as
// the probe: a connection reset during its handshake, as a JVM still
// starting gives, leaves v1.0.4 waiting for ever.)
func firstSession(b *testing.B, addr string) {
	deadline := time.Now().Add(time.Minute)
	for wait := time.Millisecond; !trySession(addr); wait = min(2*wait, 20*time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatalf("%s: no session after a minute", addr)
		}
		time.Sleep(wait)
	}
}

func trySession(addr string) bool {
	nc, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	// ConnectRequest: protocolVersion 0, lastZxidSeen 0, timeOut 4000,
	// sessionId 0, passwd of 16 zero bytes, readOnly false.
	req := binary.BigEndian.AppendUint32(nil, 4+8+4+8+4+16+1)
	req = append(req, make([]byte, 12)...)
	req = binary.BigEndian.AppendUint32(req, 4000)
	req = append(req, make([]byte, 8)...)
	req = binary.BigEndian.AppendUint32(req, 16)
	req = append(req, make([]byte, 17)...)
	if _, err := nc.Write(req); err != nil {
		return false
	}
	resp := make([]byte, 4+4+4+8)
	if _, err := io.ReadFull(nc, resp); err != nil {
		return false
	}
	return binary.BigEndian.Uint64(resp[12:]) != 0 // the granted session id
}

// dial connects go-zookeeper to a server known to be serving.
func dial(b testing.TB, addr string) *zk.Conn {
	conn, events, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		b.Fatal(err)
	}
	timeout := time.After(time.Minute)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				return conn
			}
		case <-timeout:
			b.Fatalf("%s: no session after a minute", addr)
		}
	}
}
