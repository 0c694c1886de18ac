package interop_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zksim/zksim/internal/zktest"
)

// kazooProc is one run of scripts/kazoo-recipes-faults.py --recipe lock:
// one kazoo client and one stock kazoo Lock. Its "* ..." lines (kazoo's
// connection listener and the recipe's listings, which may come at any
// time) are the Script's side lines.
type kazooProc struct {
	*zktest.Script
	session int64
}

// startKazoo runs the script against the fake with the lock at dir and
// waits for its session. The test's cleanup tells it to quit and waits
// for it; a deadline kills it.
func startKazoo(t *testing.T, ctx context.Context, f *fake, dir string) *kazooProc {
	t.Helper()
	py := zktest.KazooPython(t)
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "kazoo-recipes-faults.py"))
	if err != nil {
		t.Fatal(err)
	}
	p := &kazooProc{Script: zktest.StartScript(t, ctx, "* ", py, script, "--recipe", "lock", "--timeout", "20", "--hosts", f.addr, "--path", dir)}
	line := p.Expect(t, ctx, `^session 0x[0-9a-f]+$`)
	if p.session, err = strconv.ParseInt(strings.TrimPrefix(line, "session 0x"), 16, 64); err != nil {
		t.Fatal(err)
	}
	return p
}

// acquired sends acquire and wants the lock: it returns the node's name.
func (p *kazooProc) acquired(t *testing.T, ctx context.Context, who string) string {
	t.Helper()
	p.Send(t, "acquire")
	line, ok := p.Next(t, ctx)
	if !ok {
		t.Fatalf("%s: kazoo did not acquire: %v", who, ctx.Err())
	}
	node, ok := strings.CutPrefix(line, "acquired ")
	if !ok {
		t.Fatalf("%s: kazoo said %q, want acquired", who, line)
	}
	return node
}

// releaseAndHandOver has the holder release, checks the directory is left
// empty, and has a fresh contender take the lock at once.
func (p *kazooProc) releaseAndHandOver(t *testing.T, ctx context.Context, f *fake, dir string) {
	t.Helper()
	p.Send(t, "release")
	p.Expect(t, ctx, `^released True$`)
	f.noOrphan(t, dir, "A's release")
	b := startKazoo(t, ctx, f, dir)
	b.acquired(t, ctx, "B after A released")
}
