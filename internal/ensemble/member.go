package ensemble

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// member is one server: its files, its address, and the process that
// runs it now, if any.
type member struct {
	index               int
	dir, cfg, data, log string
	addr                string
	proc                *process // nil: never started, killed, or a failed restart's
	paused              bool
}

// process is one JVM of a member, started by launch.
type process struct {
	cmd      *exec.Cmd
	done     chan struct{} // closed once the process has exited and been reaped
	log      string
	logStart int64 // the log's size when this process started
}

// jars are the class path, from Options.JarDir (Debian's names).
var jars = []string{"zookeeper.jar", "slf4j-log4j12.jar", "log4j-1.2.jar"}

const mainClass = "org.apache.zookeeper.server.quorum.QuorumPeerMain"

// newMember writes member i's zoo.cfg, log4j configuration and data
// directory (myid for an ensemble). ports are three per member: client,
// peer (quorum) and election; peers are the relays member i reaches the
// others through (nil for a standalone server).
func newMember(dir string, i int, o Options, ports []int, peers *peerNet) (*member, error) {
	mdir := filepath.Join(dir, "member"+strconv.Itoa(i))
	m := &member{index: i, dir: mdir, cfg: filepath.Join(mdir, "zoo.cfg"), data: filepath.Join(mdir, "data"),
		log: filepath.Join(mdir, "log"), addr: "127.0.0.1:" + strconv.Itoa(ports[3*i])}
	if err := os.RemoveAll(mdir); err != nil {
		return nil, fmt.Errorf("ensemble: %w", err)
	}
	if err := os.MkdirAll(m.data, 0o755); err != nil {
		return nil, fmt.Errorf("ensemble: %w", err)
	}
	files := map[string]string{m.cfg: zooCfg(m, o, ports, peers), filepath.Join(mdir, "log4j.properties"): log4jConfig(m.log)}
	if o.N > 1 {
		files[filepath.Join(m.data, "myid")] = strconv.Itoa(i+1) + "\n"
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			return nil, fmt.Errorf("ensemble: %w", err)
		}
	}
	return m, nil
}

// zooCfg is scripts/zk.sh's configuration: short ticks (elections and
// session expiry within seconds), every four-letter command (srvr and
// conf are how readiness is seen), no fsync (a test's data is
// disposable). Each member has its own view of the others: its own
// server line has its real quorum and election ports, which it binds;
// the line of every other member j names the relays (m, j) to j's ports
// (see peerNet), so that every link between two members can be cut or
// held. With reconfigEnabled off (3.8's default) a server keeps the
// static lines it read: the views never meet.
func zooCfg(m *member, o Options, ports []int, peers *peerNet) string {
	lines := []string{"tickTime=500", "initLimit=10", "syncLimit=5", "dataDir=" + m.data,
		"clientPort=" + strconv.Itoa(ports[3*m.index]), "clientPortAddress=127.0.0.1",
		"admin.enableServer=false", "4lw.commands.whitelist=*", "forceSync=no", "maxClientCnxns=0"}
	lines = append(lines, o.Config...)
	if o.N > 1 {
		lines = append(lines, "standaloneEnabled=false")
		for j := range o.N {
			q, e := ports[3*j+1], ports[3*j+2]
			if j != m.index {
				q, e = peers.port(m.index, j, quorumPort), peers.port(m.index, j, electionPort)
			}
			lines = append(lines, fmt.Sprintf("server.%d=127.0.0.1:%d:%d", j+1, q, e))
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// log4jConfig sends the server's log to path, rolled at 64 MB so that a
// server that logs without end (3.8.0 can, after a bad request) cannot
// fill the disk.
func log4jConfig(path string) string {
	return "log4j.rootLogger=INFO, FILE\n" +
		"log4j.appender.FILE=org.apache.log4j.RollingFileAppender\n" +
		"log4j.appender.FILE.File=" + path + "\n" +
		"log4j.appender.FILE.Append=true\n" +
		"log4j.appender.FILE.MaxFileSize=64MB\n" +
		"log4j.appender.FILE.MaxBackupIndex=1\n" +
		"log4j.appender.FILE.layout=org.apache.log4j.PatternLayout\n" +
		"log4j.appender.FILE.layout.ConversionPattern=%d{ISO8601} %-5p [%t:%C{1}@%L] - %m%n\n"
}

// launch starts m's JVM; e.mu is held. Its standard streams go to the
// log too, where the JVM's own errors (a bad option) land.
func (e *Ensemble) launch(m *member) error {
	f, err := os.OpenFile(m.log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("ensemble: member %d: %w", m.index, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("ensemble: member %d: %w", m.index, err)
	}
	cmd := exec.Command(e.opts.Java, e.javaArgs(m)...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = m.dir, f, f
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w: member %d: %s: %w", ErrNotServing, m.index, e.opts.Java, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{}), log: m.log, logStart: st.Size()}
	go func() {
		cmd.Wait()
		close(p.done)
	}()
	m.proc, m.paused = p, false
	return nil
}

// javaArgs are scripts/zk.sh's: a small heap and the client compiler,
// for a fast start of several JVMs on few cores; no perf data file
// that a SIGKILL would leave in /tmp.
func (e *Ensemble) javaArgs(m *member) []string {
	cp := make([]string, len(jars))
	for i, j := range jars {
		cp[i] = filepath.Join(e.opts.JarDir, j)
	}
	args := []string{"-Xms32m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
		"-cp", strings.Join(cp, string(os.PathListSeparator)),
		"-Dlog4j.configuration=file:" + filepath.Join(m.dir, "log4j.properties"), "-Dzookeeper.jmx.log4j.disable=true"}
	args = append(args, e.opts.JVMFlags...)
	return append(args, mainClass, m.cfg)
}

func (m *member) procOrNil() *process {
	if m == nil {
		return nil
	}
	return m.proc
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill sends SIGKILL and waits for the exit.
func (p *process) kill() {
	p.cmd.Process.Kill()
	<-p.done
}

// terminate asks the server to exit (SIGTERM; SIGCONT too, for a paused
// one could not act on it), kills it after grace, and waits for the
// exit. Signals to a process already reaped fail harmlessly: os.Process
// never signals a recycled PID.
func (p *process) terminate(grace time.Duration) {
	if p == nil || p.exited() {
		return
	}
	if sigTerm == nil {
		p.kill()
		return
	}
	p.cmd.Process.Signal(sigTerm)
	p.cmd.Process.Signal(sigCont)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.kill()
	}
}

// logTailLines is how much of a log an error quotes.
const logTailLines = 20

// logTail is the last lines the process wrote to its log, indented, for
// an error message.
func (p *process) logTail() string {
	text := p.logSince()
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > logTailLines {
		lines = lines[len(lines)-logTailLines:]
	}
	if text == "" {
		return "\n  (" + p.log + " is empty)"
	}
	return "\n  last lines of " + p.log + ":\n    " + strings.Join(lines, "\n    ")
}

// logWindow bounds what logSince reads: a starting server writes tens
// of kilobytes.
const logWindow = 1 << 20

// logSince is the end of what this process wrote to its log (of the
// whole log, if it has rolled over since), at most logWindow bytes.
func (p *process) logSince() string {
	f, err := os.Open(p.log)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	from := max(st.Size()-logWindow, 0)
	if st.Size() >= p.logStart {
		from = max(from, p.logStart)
	}
	var b bytes.Buffer
	b.ReadFrom(io.NewSectionReader(f, from, st.Size()-from))
	return b.String()
}
