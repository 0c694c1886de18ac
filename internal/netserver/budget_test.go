package netserver_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
)

// TestServer_FrameBudget: ten clients each send the header of a 16 KB
// create and trickle part of its body, against a frame budget of 64 KiB.
// The server never holds more than the budget for them: the four frames
// that fit are served once complete, the six connections whose frames
// did not fit are closed with nothing sent (their sessions live on), the
// reservations all return, and a new client is served.
func TestServer_FrameBudget(t *testing.T) {
	checkLeaks(t)
	const budget, fit, clients = 64 << 10, 4, 10
	srv, addr := newFake(t, netserver.Config{
		Machine:     machine.Config{TickMillis: 500, MaxFrame: 16 << 10},
		FrameBudget: budget,
	})
	conns := make([]*rawConn, clients)
	frames := make([][]byte, clients)
	sessions := make([]int64, clients)
	passwords := make([][]byte, clients)
	for i := range conns {
		conns[i] = dialRaw(t, addr)
		sessions[i], passwords[i], _ = conns[i].handshake(4000, 0, nil)
		frames[i] = create(int32(i+1), fmt.Sprintf("/big%d", i), strings.Repeat("x", 16000), 0)
	}
	size := len(frames[0]) - 4
	for i, c := range conns {
		c.write(frames[i][:4+1000]) // the header and a first trickle
	}
	waitBudget(t, srv, "every frame reserved or refused", func(u netserver.FrameBudgetUse) bool {
		return u.Held/size+u.Refused == clients
	})
	if u := netserver.FrameBudget(srv); u.Held != fit*size || u.Refused != clients-fit || u.Peak > budget {
		t.Fatalf("frame budget use %+v, want %d held, %d refused and a peak of at most %d", u, fit*size, clients-fit, budget)
	}
	served, closed := completeFrames(t, conns, frames)
	if served != fit || len(closed) != clients-fit {
		t.Fatalf("%d frames served and %d connections closed, want %d and %d", served, len(closed), fit, clients-fit)
	}
	waitBudget(t, srv, "every reservation released", func(u netserver.FrameBudgetUse) bool { return u.Held == 0 })
	if u := netserver.FrameBudget(srv); u.Peak > budget {
		t.Errorf("peak %d bytes reserved, over the budget %d", u.Peak, budget)
	}
	i := closed[0]
	if sid, _, _ := dialRaw(t, addr).handshake(4000, sessions[i], passwords[i]); sid != sessions[i] {
		t.Errorf("resuming the session of a refused frame: %#x, want %#x", sid, sessions[i])
	}
	serving(t, addr)
}

// completeFrames trickles the rest of each frame in pieces and reads each
// connection's answer: it returns how many were answered with success and
// which connections were closed with nothing sent.
func completeFrames(t *testing.T, conns []*rawConn, frames [][]byte) (served int, closed []int) {
	t.Helper()
	for i, c := range conns {
		for off := 4 + 1000; off < len(frames[i]); off += 3000 {
			c.write(frames[i][off:min(off+3000, len(frames[i]))])
		}
	}
	for i, c := range conns {
		b, err := c.frame(replyWait)
		switch {
		case errors.Is(err, io.EOF):
			closed = append(closed, i)
		case err != nil:
			t.Fatalf("client %d: %v", i, err)
		case int32(binary.BigEndian.Uint32(b)) != int32(i+1) || binary.BigEndian.Uint32(b[12:]) != 0:
			t.Fatalf("client %d: reply %x, want a successful create", i, b[:16])
		default:
			served++
		}
	}
	return served, closed
}

func waitBudget(t *testing.T, srv *netserver.Server, what string, cond func(netserver.FrameBudgetUse) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := netserver.WaitFrameBudget(ctx, srv, cond); err != nil {
		t.Fatalf("waiting for %s: %v (use %+v)", what, err, netserver.FrameBudget(srv))
	}
}

// TestServer_FrameBudgetBelowMaxFrame: a budget that cannot hold one
// largest frame is refused.
func TestServer_FrameBudgetBelowMaxFrame(t *testing.T) {
	_, err := netserver.New(netserver.Config{Machine: machine.Config{MaxFrame: 1 << 20}, FrameBudget: 1 << 19})
	if err == nil || !strings.Contains(err.Error(), "below MaxFrame") {
		t.Fatalf("New with a budget below MaxFrame: %v, want an error", err)
	}
}
