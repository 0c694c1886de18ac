package zktest

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Script is a child process driven in lines, as the kazoo scripts under
// scripts/ are: commands to its stdin, one line per step from its stdout.
// Lines that start with the side prefix given to StartScript (reports
// that may come at any time, such as a client's connection states) are
// kept apart from the replies; Sides and WaitSide read them.
type Script struct {
	name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr bytes.Buffer
	done   chan struct{} // closed once stdout is drained and the process reaped
	err    error

	side    string
	mu      sync.Mutex
	sides   []string
	changed chan struct{}
}

// StartScript runs name with args. The process lives at most a minute
// (then it is killed, by its PID); the test's cleanup closes its stdin and
// waits for it to end.
func StartScript(t testing.TB, ctx context.Context, side, name string, args ...string) *Script {
	t.Helper()
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	p := &Script{
		name: filepath.Base(args[0]), cmd: exec.CommandContext(pctx, name, args...),
		lines: make(chan string, 16), done: make(chan struct{}), side: side, changed: make(chan struct{}),
	}
	p.cmd.WaitDelay = 5 * time.Second
	p.cmd.Stderr = &p.stderr
	stdin, err := p.cmd.StdinPipe()
	if err == nil {
		var stdout io.Reader
		if stdout, err = p.cmd.StdoutPipe(); err == nil {
			if err = p.cmd.Start(); err == nil {
				p.stdin = stdin
				go p.read(stdout, cancel)
				t.Cleanup(func() {
					p.stdin.Close()
					<-p.done
				})
				return p
			}
		}
	}
	cancel()
	t.Fatalf("start %s: %v", p.name, err)
	return nil
}

func (p *Script) read(stdout io.Reader, cancel context.CancelFunc) {
	defer close(p.done)
	defer cancel()
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if p.side != "" && strings.HasPrefix(sc.Text(), p.side) {
			p.mu.Lock()
			p.sides = append(p.sides, strings.TrimPrefix(sc.Text(), p.side))
			close(p.changed)
			p.changed = make(chan struct{})
			p.mu.Unlock()
			continue
		}
		p.lines <- sc.Text()
	}
	close(p.lines)
	p.err = p.cmd.Wait()
}

// Send writes one line to the script.
func (p *Script) Send(t testing.TB, line string) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		t.Fatalf("write %q to %s: %v", line, p.name, err)
	}
}

// Next returns the script's next line, or false if ctx ends first; it
// fails t if the script ends instead.
func (p *Script) Next(t testing.TB, ctx context.Context) (string, bool) {
	t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			<-p.done
			t.Fatalf("%s ended (%v); stderr:\n%s", p.name, p.err, p.stderr.String())
		}
		return line, true
	case <-ctx.Done():
		return "", false
	}
}

// Expect returns the script's next line, which must match re.
func (p *Script) Expect(t testing.TB, ctx context.Context, re string) string {
	t.Helper()
	line, ok := p.Next(t, ctx)
	if !ok {
		t.Fatalf("no line from %s matching %q: %v", p.name, re, ctx.Err())
	}
	if !regexp.MustCompile(re).MatchString(line) {
		t.Fatalf("%s said %q, want %q", p.name, line, re)
	}
	return line
}

// Pending fails t if the script has said anything since the last line
// read: it should still be waiting.
func (p *Script) Pending(t testing.TB, what string) {
	t.Helper()
	select {
	case line := <-p.lines:
		t.Fatalf("%s: %s said %q, want it still waiting", what, p.name, line)
	default:
	}
}

// Wait closes the script's stdin and waits for it to end; it fails t if
// the script failed.
func (p *Script) Wait(t testing.TB) {
	t.Helper()
	p.stdin.Close()
	<-p.done
	if p.err != nil {
		t.Fatalf("%s: %v; stderr:\n%s", p.name, p.err, p.stderr.String())
	}
}

// Sides is the number of side lines seen so far, a mark for WaitSide.
func (p *Script) Sides() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.sides)
}

// WaitSide waits until the script says side line want (without its
// prefix) after the first from.
func (p *Script) WaitSide(t testing.TB, ctx context.Context, from int, want string) {
	t.Helper()
	for {
		p.mu.Lock()
		seen, ch := p.sides[min(from, len(p.sides)):], p.changed
		p.mu.Unlock()
		for _, s := range seen {
			if s == want {
				return
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("%s never said %s%s (said %v): %v", p.name, p.side, want, seen, ctx.Err())
		}
	}
}

// kazooInterpreter is Debian's python3, where python3-kazoo lives; the
// python3 first on PATH may be another one (pyenv) without kazoo.
const kazooInterpreter = "/usr/bin/python3"

var kazooProbe struct {
	once sync.Once
	err  error
}

// KazooPython returns the interpreter that imports kazoo, or skips t with
// a one-line reason.
func KazooPython(t testing.TB) string {
	t.Helper()
	kazooProbe.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		kazooProbe.err = exec.CommandContext(ctx, kazooInterpreter, "-c", "import kazoo").Run()
	})
	if kazooProbe.err != nil {
		t.Skipf("python3-kazoo not installed: %s cannot import kazoo (apt-get install python3-kazoo)", kazooInterpreter)
	}
	return kazooInterpreter
}
