package interop_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// kazooInterpreter is Debian's python3, where python3-kazoo lives; the
// python3 first on PATH may be another one (pyenv) without kazoo.
const kazooInterpreter = "/usr/bin/python3"

// kazooProbe is the result of asking the interpreter for kazoo, once.
var kazooProbe struct {
	once    sync.Once
	version string
	err     error
}

// kazooPython returns the interpreter that imports kazoo, or skips t.
func kazooPython(t *testing.T) string {
	t.Helper()
	kazooProbe.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, kazooInterpreter, "-c",
			"import kazoo.version; print(kazoo.version.__version__)").Output()
		kazooProbe.version, kazooProbe.err = strings.TrimSpace(string(out)), err
	})
	if kazooProbe.err != nil {
		t.Skipf("python3-kazoo not installed: %s cannot import kazoo", kazooInterpreter)
	}
	return kazooInterpreter
}

// kazooProc is one run of scripts/kazoo-lock-faults.py: one kazoo client
// and one stock kazoo Lock. Its "state ..." lines (kazoo's connection
// listener, which may speak at any time) are kept apart from the replies
// to its commands.
type kazooProc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan string
	stderr  bytes.Buffer
	done    chan struct{} // closed when stdout is drained and the process reaped
	err     error
	session int64

	mu      sync.Mutex
	states  []string
	changed chan struct{}
}

// startKazoo runs the script against the fake with the lock at dir and
// waits for its session. The test's cleanup tells it to quit and waits
// for it; a deadline kills it.
func startKazoo(t *testing.T, ctx context.Context, f *fake, dir string) *kazooProc {
	t.Helper()
	py := kazooPython(t)
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "kazoo-lock-faults.py"))
	if err != nil {
		t.Fatal(err)
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	p := &kazooProc{
		cmd:   exec.CommandContext(pctx, py, script, "--hosts", f.addr, "--path", dir),
		lines: make(chan string, 16), done: make(chan struct{}), changed: make(chan struct{}),
	}
	p.cmd.WaitDelay = 5 * time.Second
	p.cmd.Stderr = &p.stderr
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start %s: %v", script, err)
	}
	p.stdin = stdin
	go p.read(stdout, cancel)
	t.Cleanup(func() {
		p.stdin.Close() // EOF: the script cancels, closes its session, exits
		<-p.done
	})
	line := p.expect(t, ctx, `^session 0x[0-9a-f]+$`)
	if p.session, err = strconv.ParseInt(strings.TrimPrefix(line, "session 0x"), 16, 64); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *kazooProc) read(stdout io.Reader, cancel context.CancelFunc) {
	defer close(p.done)
	defer cancel()
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if st, ok := strings.CutPrefix(sc.Text(), "state "); ok {
			p.mu.Lock()
			p.states = append(p.states, st)
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

// send writes one command.
func (p *kazooProc) send(t *testing.T, cmd string) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, cmd+"\n"); err != nil {
		t.Fatalf("write %q to kazoo-lock-faults.py: %v", cmd, err)
	}
}

// next returns the script's next line, or false if ctx ends first.
func (p *kazooProc) next(t *testing.T, ctx context.Context) (string, bool) {
	t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			<-p.done
			t.Fatalf("kazoo-lock-faults.py ended (%v); stderr:\n%s", p.err, p.stderr.String())
		}
		return line, true
	case <-ctx.Done():
		return "", false
	}
}

// expect returns the script's next line, which must match re.
func (p *kazooProc) expect(t *testing.T, ctx context.Context, re string) string {
	t.Helper()
	line, ok := p.next(t, ctx)
	if !ok {
		t.Fatalf("no line from kazoo-lock-faults.py matching %q: %v", re, ctx.Err())
	}
	if !regexp.MustCompile(re).MatchString(line) {
		t.Fatalf("kazoo-lock-faults.py said %q, want %q", line, re)
	}
	return line
}

// silent confirms the script says nothing within hangWindow: a pending
// acquire that hangs.
func (p *kazooProc) silent(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, hangWindow)
	defer cancel()
	if line, ok := p.next(t, ctx); ok {
		t.Fatalf("%s: kazoo-lock-faults.py said %q; measured: it hangs", what, line)
	}
}

// mark is the number of listener states seen so far, for waitState.
func (p *kazooProc) mark() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.states)
}

// waitState waits until kazoo's listener reports st after the first from
// states.
func (p *kazooProc) waitState(t *testing.T, ctx context.Context, from int, st string) {
	t.Helper()
	for {
		p.mu.Lock()
		seen, ch := p.states[min(from, len(p.states)):], p.changed
		p.mu.Unlock()
		for _, s := range seen {
			if s == st {
				return
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("kazoo's listener never said %s (said %v): %v", st, seen, ctx.Err())
		}
	}
}

// acquired sends acquire and wants the lock: it returns the node's name.
func (p *kazooProc) acquired(t *testing.T, ctx context.Context, who string) string {
	t.Helper()
	p.send(t, "acquire")
	line, ok := p.next(t, ctx)
	if !ok {
		t.Fatalf("%s: kazoo did not acquire: %v", who, ctx.Err())
	}
	node, ok := strings.CutPrefix(line, "acquired ")
	if !ok {
		t.Fatalf("%s: kazoo said %q, want acquired", who, line)
	}
	return node
}
