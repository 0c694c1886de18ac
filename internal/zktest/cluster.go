package zktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// srvrTimeout bounds one srvr exchange with a server on loopback.
const srvrTimeout = 2 * time.Second

// Cluster is an ensemble started by scripts/zk.sh. Servers are numbered
// from 1; Addrs[i-1] is server i's client address. Each method reads the
// state directory afresh, so a Cluster stays valid across Kill and Restart.
type Cluster struct {
	Dir   string
	Addrs []string
}

// Mode returns server i's srvr Mode: "leader", "follower", "standalone" or
// "observer". A server without quorum yields an error wrapping
// ErrNotServing; a dead one, a dial error.
func (c *Cluster) Mode(i int) (string, error) {
	if err := c.check(i); err != nil {
		return "", err
	}
	fields, err := srvr(c.Addrs[i-1], srvrTimeout)
	if err != nil {
		return "", fmt.Errorf("zktest: server %d: %w", i, err)
	}
	return fields["Mode"], nil
}

// Leader returns the index of the server that reports itself leader (or
// standalone). Servers that do not answer are passed over.
func (c *Cluster) Leader() (int, error) {
	var errs []error
	for i := 1; i <= len(c.Addrs); i++ {
		mode, err := c.Mode(i)
		if mode == "leader" || mode == "standalone" {
			return i, nil
		}
		errs = append(errs, err)
	}
	return 0, fmt.Errorf("%w in %s: %w", ErrNoLeader, c.Dir, errors.Join(errs...))
}

// WaitLeader polls Leader until a leader serves or ctx ends; after a leader
// is killed the others elect a new one within about a second.
func (c *Cluster) WaitLeader(ctx context.Context) (int, error) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		i, err := c.Leader()
		if err == nil {
			return i, nil
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("zktest: waiting for a leader: %w (last: %w)", ctx.Err(), err)
		case <-tick.C:
		}
	}
}

// PID returns server i's process id if that server is running.
func (c *Cluster) PID(i int) (int, error) {
	if err := c.check(i); err != nil {
		return 0, err
	}
	b, err := os.ReadFile(filepath.Join(c.serverDir(i), "pid"))
	if err != nil {
		return 0, fmt.Errorf("%w: server %d: %w", ErrNotRunning, i, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || !c.alive(i, pid) {
		return 0, fmt.Errorf("%w: server %d (pid file says %q)", ErrNotRunning, i, strings.TrimSpace(string(b)))
	}
	return pid, nil
}

// Kill sends SIGKILL to server i's recorded PID and waits until the process
// is gone.
func (c *Cluster) Kill(i int) error {
	pid, err := c.PID(i)
	if err != nil {
		return err
	}
	if err := kill(pid); err != nil {
		return fmt.Errorf("zktest: kill server %d (pid %d): %w", i, pid, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for c.alive(i, pid) {
		if time.Now().After(deadline) {
			return fmt.Errorf("zktest: server %d (pid %d) still alive 10s after SIGKILL", i, pid)
		}
		<-tick.C
	}
	return nil
}

// Restart starts server i again with its config, through
// "scripts/zk.sh restart", and returns once it serves.
func (c *Cluster) Restart(i int) error {
	if err := c.check(i); err != nil {
		return err
	}
	script, err := c.script()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script, "restart", c.Dir, strconv.Itoa(i))
	// The JVM outlives the script; should it ever hold the output pipe,
	// do not wait for it.
	cmd.WaitDelay = 5 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("zktest: restart server %d: %w\n%s", i, err, out)
	}
	return nil
}

func (c *Cluster) check(i int) error {
	if i < 1 || i > len(c.Addrs) {
		return fmt.Errorf("%w: %d not in 1..%d", ErrBadIndex, i, len(c.Addrs))
	}
	return nil
}

func (c *Cluster) serverDir(i int) string {
	return filepath.Join(c.Dir, "server"+strconv.Itoa(i))
}

// alive reports whether pid is still server i: a live process whose command
// line names server i's zoo.cfg, so that a recycled PID is never mistaken
// for it.
func (c *Cluster) alive(i, pid int) bool {
	return processAlive(pid, filepath.Join(c.serverDir(i), "zoo.cfg"))
}

// script finds scripts/zk.sh: first in the module around the working
// directory (walking up to the nearest go.mod), then at the path the script
// recorded in the state directory when it started the cluster.
func (c *Cluster) script() (string, error) {
	if dir, err := moduleRoot(); err == nil {
		p := filepath.Join(dir, "scripts", "zk.sh")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if b, err := os.ReadFile(filepath.Join(c.Dir, "script")); err == nil {
		p := strings.TrimSpace(string(b))
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: not under the module root nor recorded in %s/script", ErrNoScript, c.Dir)
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
