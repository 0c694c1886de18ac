package netserver

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/zksim/zksim/internal/ctxcond"
	"github.com/zksim/zksim/internal/wire"
)

// DefaultFrameBudget is Config.FrameBudget's default: 64 frames of
// jute.maxbuffer's default size arriving at once.
const DefaultFrameBudget = 64 << 20

// keepBuffer is the largest frame buffer a connection keeps for its next
// frame. A larger one is dropped once its frame is decoded, so that an
// idle connection does not pin its largest frame outside the budget.
const keepBuffer = 16 << 10

// errFrameBudget closes a connection whose frame does not fit in the
// frame budget.
var errFrameBudget = errors.New("netserver: frame budget exhausted")

// frameBudget bounds the bytes that all connections together hold for
// request frames still arriving (Config.FrameBudget).
//
// A frame reserves its whole declared length when its 4-byte header
// arrives, not its bytes as they come: that is what the reader allocates
// at once (as the real server's NIOServerCnxn allocates a buffer of the
// declared length), so the budget bounds real memory however slowly the
// bytes trickle in, and the connection refused is the one whose request
// came last. Growing a reservation as bytes arrived would close whichever
// connection happened to send a byte when the budget ran out, often an
// older frame close to complete.
type frameBudget struct {
	limit int // 0: no limit

	mu      sync.Mutex
	held    int
	peak    int
	refused int
	changed ctxcond.Var // broadcast at every change, for tests
}

// reserve takes n bytes, or returns errFrameBudget, counted as a refusal,
// if they do not fit.
func (b *frameBudget) reserve(n int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	defer b.changed.Broadcast()
	if b.limit > 0 && b.held+n > b.limit {
		b.refused++
		return fmt.Errorf("%w: a frame of %d bytes with %d of %d held", errFrameBudget, n, b.held, b.limit)
	}
	b.held += n
	b.peak = max(b.peak, b.held)
	return nil
}

func (b *frameBudget) release(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.held -= n
	b.changed.Broadcast()
}

// readFrame reads the next frame of r into buf, or a new buffer if buf is
// too small, with its length reserved in the frame budget: the caller
// releases len(frame) once it has decoded the frame.
func (c *conn) readFrame(r io.Reader, buf []byte, max int) ([]byte, error) {
	var prefix [4]byte
	if _, err := io.ReadFull(r, prefix[:]); err != nil {
		return nil, err
	}
	return c.readBody(r, prefix, buf, max)
}

// readBody is readFrame once the length prefix has been read.
func (c *conn) readBody(r io.Reader, prefix [4]byte, buf []byte, max int) ([]byte, error) {
	size := int32(binary.BigEndian.Uint32(prefix[:]))
	if size < 0 || int(size) > max {
		return wire.ReadBody(r, prefix, nil, max) // refuses it, reading nothing
	}
	if err := c.s.budget.reserve(int(size)); err != nil {
		return nil, err
	}
	frame, err := wire.ReadBody(r, prefix, buf, max)
	if err != nil {
		c.s.budget.release(int(size))
	}
	return frame, err
}

// doneWith releases a decoded frame's reservation and returns the buffer
// to read the next frame into.
func (c *conn) doneWith(frame []byte) []byte {
	c.s.budget.release(len(frame))
	if cap(frame) > keepBuffer {
		return nil
	}
	return frame
}
