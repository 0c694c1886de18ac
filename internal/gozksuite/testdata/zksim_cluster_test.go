package zk

// This file replaces go-zookeeper v1.0.4's server_help_test.go and
// server_java_test.go when internal/gozksuite runs the module's own tests
// against zksim serve: the same TestCluster API, so that the unmodified
// tests compile, with one `zksim serve -followers N-1` process per cluster
// in place of N Java servers. A member is stopped and started through the
// control interface (POST /members/{i}/stop and /start), on the same
// port. It is written in the module's language version (go 1.13).
//
// Environment: ZKSIM_BIN, the zksim binary (required); ZKSIM_SERVE_ARGS,
// extra flags for serve, space-separated (the suite's Java config: super
// digest, extended types, 353 TTL emulation, reconfig); ZKSIM_SERVE_LOG=1
// copies serve's stderr to the test's stderr.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/ioutil"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	_testConfigName   = "zoo.cfg"
	_testMyIDFileName = "myid"

	DefaultServerTickTime                 = 500
	DefaultServerInitLimit                = 10
	DefaultServerSyncLimit                = 5
	DefaultServerAutoPurgeSnapRetainCount = 3
	DefaultPeerPort                       = 2888
	DefaultLeaderElectionPort             = 3888
)

type ErrMissingServerConfigField string

func (e ErrMissingServerConfigField) Error() string {
	return fmt.Sprintf("zk: missing server config field '%s'", string(e))
}

type TestServer struct {
	Port   int
	Path   string
	Srv    *server
	Config ServerConfigServer
}

type TestCluster struct {
	Path    string
	Config  ServerConfig
	Servers []TestServer
	proc    *serveProc
}

// serveProc is one running zksim serve.
type serveProc struct {
	cmd     *exec.Cmd
	control string // http://host:port
	token   string // the control token serve printed
	addrs   []string
	once    sync.Once
	done    chan struct{}
}

var addrLine = regexp.MustCompile(`^zksim serve: (leader|follower \d+) on (\S+)$`)
var controlLine = regexp.MustCompile(`^zksim serve: control on (\S+)$`)
var tokenLine = regexp.MustCompile(`^zksim serve: control token (\S+)$`)

// startServe runs zksim serve with args and waits for its address lines.
func startServe(args ...string) (*serveProc, error) {
	bin := os.Getenv("ZKSIM_BIN")
	if bin == "" {
		return nil, fmt.Errorf("ZKSIM_BIN is not set")
	}
	args = append(args, strings.Fields(os.Getenv("ZKSIM_SERVE_ARGS"))...)
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	if os.Getenv("ZKSIM_SERVE_LOG") == "1" {
		cmd.Stderr = os.Stderr
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &serveProc{cmd: cmd, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(p.done)
	}()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if m := addrLine.FindStringSubmatch(sc.Text()); m != nil {
			p.addrs = append(p.addrs, m[2])
		}
		if m := tokenLine.FindStringSubmatch(sc.Text()); m != nil {
			p.token = m[1]
		}
		if m := controlLine.FindStringSubmatch(sc.Text()); m != nil {
			p.control = m[1]
			go io.Copy(ioutil.Discard, out)
			return p, nil
		}
	}
	p.kill()
	return nil, fmt.Errorf("zksim serve %v ended before printing its addresses", args)
}

func (p *serveProc) kill() {
	p.once.Do(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
}

// request is a control request with the token.
func (p *serveProc) request(method, path string) (*http.Response, error) {
	req, err := http.NewRequest(method, p.control+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	return http.DefaultClient.Do(req)
}

func (p *serveProc) post(path string) error {
	resp, err := p.request("POST", path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := ioutil.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s: %s", path, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}

func portOf(addr string) int {
	i := strings.LastIndex(addr, ":")
	port, _ := strconv.Atoi(addr[i+1:])
	return port
}

// server is one member of a served cluster, or (NewIntegrationTestServer)
// a standalone zksim serve of its own.
type server struct {
	proc   *serveProc
	member int

	standaloneAddr string
}

func (srv *server) Start() error {
	if srv.standaloneAddr != "" {
		p, err := startServe("-addr", srv.standaloneAddr, "-tick", strconv.Itoa(DefaultServerTickTime))
		srv.proc = p
		return err
	}
	return srv.proc.post(fmt.Sprintf("/members/%d/start", srv.member))
}

func (srv *server) Stop() error {
	if srv.standaloneAddr != "" {
		if srv.proc != nil {
			srv.proc.kill()
		}
		return nil
	}
	return srv.proc.post(fmt.Sprintf("/members/%d/stop", srv.member))
}

// NewIntegrationTestServer returns a standalone server on the client port
// of the config file at configPath.
func NewIntegrationTestServer(t *testing.T, configPath string, stdout, stderr io.Writer) (*server, error) {
	b, err := ioutil.ReadFile(configPath)
	if err != nil {
		return nil, err
	}
	m := regexp.MustCompile(`(?m)^clientPort=(\d+)$`).FindSubmatch(b)
	if m == nil {
		return nil, fmt.Errorf("no clientPort in %s", configPath)
	}
	srv := &server{standaloneAddr: "127.0.0.1:" + string(m[1])}
	t.Cleanup(func() {
		if srv.proc != nil {
			srv.proc.kill()
		}
	})
	return srv, nil
}

func StartTestCluster(t *testing.T, size int, stdout, stderr io.Writer) (*TestCluster, error) {
	t.Helper()
	if testing.Short() {
		t.Skip("ZK cluster tests skipped in short case.")
	}
	p, err := startServe("-addr", "127.0.0.1:0", "-control", "127.0.0.1:0",
		"-followers", strconv.Itoa(size-1), "-tick", strconv.Itoa(DefaultServerTickTime))
	if err != nil {
		return nil, err
	}
	t.Cleanup(p.kill)
	if len(p.addrs) != size {
		p.kill()
		return nil, fmt.Errorf("zksim serve listed %d members, want %d", len(p.addrs), size)
	}
	cluster := &TestCluster{Path: t.TempDir(), proc: p}
	for i := range p.addrs {
		// Peer and election ports are only named in configs (the fake has
		// no quorum protocol): ZooKeeper's defaults, one apart per server.
		cluster.Config.Servers = append(cluster.Config.Servers, ServerConfigServer{
			ID: i + 1, Host: "127.0.0.1", PeerPort: DefaultPeerPort + i, LeaderElectionPort: DefaultLeaderElectionPort + i,
		})
	}
	for i, addr := range p.addrs {
		srvPath := filepath.Join(cluster.Path, fmt.Sprintf("srv%d", i+1))
		requireNoErrorf(t, os.Mkdir(srvPath, 0700), "failed to make server path")
		cluster.Servers = append(cluster.Servers, TestServer{
			Port: portOf(addr), Path: srvPath, Srv: &server{proc: p, member: i},
			Config: cluster.Config.Servers[i],
		})
		cluster.Config.ClientPort = portOf(addr)
		cluster.Config.DataDir = srvPath
	}
	return cluster, nil
}

func (tc *TestCluster) Connect(idx int) (*Conn, <-chan Event, error) {
	return Connect([]string{fmt.Sprintf("127.0.0.1:%d", tc.Servers[idx].Port)}, time.Second*15)
}

func (tc *TestCluster) ConnectAll() (*Conn, <-chan Event, error) {
	return tc.ConnectAllTimeout(time.Second * 15)
}

func (tc *TestCluster) ConnectAllTimeout(sessionTimeout time.Duration) (*Conn, <-chan Event, error) {
	return tc.ConnectWithOptions(sessionTimeout)
}

func (tc *TestCluster) ConnectWithOptions(sessionTimeout time.Duration, options ...connOption) (*Conn, <-chan Event, error) {
	hosts := make([]string, len(tc.Servers))
	for i, srv := range tc.Servers {
		hosts[i] = fmt.Sprintf("127.0.0.1:%d", srv.Port)
	}
	return Connect(hosts, sessionTimeout, options...)
}

// Stop ends the whole serve process.
func (tc *TestCluster) Stop() error {
	tc.proc.kill()
	return nil
}

func (tc *TestCluster) StartServer(server string) {
	for _, s := range tc.Servers {
		if strings.HasSuffix(server, fmt.Sprintf(":%d", s.Port)) {
			if err := s.Srv.Start(); err != nil {
				// The Java harness ignores this error too; the test
				// fails on what follows.
				fmt.Fprintf(os.Stderr, "zksim harness: start %s: %v\n", server, err)
			}
			return
		}
	}
	panic(fmt.Sprintf("unknown server: %s", server))
}

func (tc *TestCluster) StopServer(server string) {
	for _, s := range tc.Servers {
		if strings.HasSuffix(server, fmt.Sprintf(":%d", s.Port)) {
			if err := s.Srv.Stop(); err != nil {
				// The Java harness ignores this error too; the test
				// fails on what follows.
				fmt.Fprintf(os.Stderr, "zksim harness: stop %s: %v\n", server, err)
			}
			return
		}
	}
	panic(fmt.Sprintf("unknown server: %s", server))
}

func (tc *TestCluster) StartAllServers() error {
	for _, s := range tc.Servers {
		if err := s.Srv.Start(); err != nil {
			return fmt.Errorf("failed to start server listening on port `%d` : %+v", s.Port, err)
		}
	}
	tc.waitForClients(10 * time.Second)
	return nil
}

// waitForClients stands for the Java harness's waitForStart: a JVM takes
// a second or more to serve again, and by the time waitForStart sees it
// serving, the clients that lost it have reconnected. serve is back at
// once, so this waits, up to limit, until no live session is without a
// connection (GET /sessions shows client=-), rather than return while a
// client is still noticing the loss and failing the requests it queued.
func (tc *TestCluster) waitForClients(limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		resp, err := tc.proc.request("GET", "/sessions")
		if err != nil {
			return
		}
		body, _ := ioutil.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), "client=-") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (tc *TestCluster) StopAllServers() error {
	for _, s := range tc.Servers {
		if err := s.Srv.Stop(); err != nil {
			return fmt.Errorf("failed to stop server listening on port `%d` : %v", s.Port, err)
		}
	}
	return nil
}

func requireNoErrorf(t *testing.T, err error, msgAndArgs ...interface{}) {
	t.Helper()
	if err != nil {
		t.Logf("received unexpected error: %v", err)
		t.Fatal(msgAndArgs...)
	}
}

type ServerConfigServer struct {
	ID                 int
	Host               string
	PeerPort           int
	LeaderElectionPort int
}

type ServerConfig struct {
	TickTime                 int
	InitLimit                int
	SyncLimit                int
	DataDir                  string
	ClientPort               int
	AutoPurgeSnapRetainCount int
	AutoPurgePurgeInterval   int
	Servers                  []ServerConfigServer
}

// Marshall writes the lines NewIntegrationTestServer reads (clientPort)
// and the rest of a zoo.cfg, for tests that read it back.
func (sc ServerConfig) Marshall(w io.Writer) error {
	if sc.DataDir == "" {
		return ErrMissingServerConfigField("dataDir")
	}
	if sc.ClientPort <= 0 {
		sc.ClientPort = DefaultPort
	}
	fmt.Fprintf(w, "dataDir=%s\nclientPort=%d\nreconfigEnabled=true\n", sc.DataDir, sc.ClientPort)
	for _, srv := range sc.Servers {
		fmt.Fprintf(w, "server.%d=%s:%d:%d\n", srv.ID, srv.Host, srv.PeerPort, srv.LeaderElectionPort)
	}
	return nil
}

// waitForSession waits for the next event to say the session is there.
func waitForSession(ctx context.Context, eventChan <-chan Event) error {
	select {
	case event, ok := <-eventChan:
		if !ok {
			return fmt.Errorf("connection closed before state reached")
		}
		if event.State == StateHasSession {
			return nil
		}
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}
