package netserver_test

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/internal/zktest"
	"go.uber.org/goleak"
)

// This file is a raw ZooKeeper client for tests that send bytes no real
// client would: jute built by hand, frames read one by one, and every
// reply described with the values that differ between servers (zxids,
// session ids, passwords, times) normalised away.

// jb builds jute records.
type jb []byte

func (j jb) i32(v int32) jb  { return binary.BigEndian.AppendUint32(j, uint32(v)) }
func (j jb) i64(v int64) jb  { return binary.BigEndian.AppendUint64(j, uint64(v)) }
func (j jb) str(s string) jb { return append(j.i32(int32(len(s))), s...) }
func (j jb) null() jb        { return j.i32(-1) }
func (j jb) bytes(b []byte) jb {
	return append(j.i32(int32(len(b))), b...)
}

func (j jb) bool(v bool) jb {
	if v {
		return append(j, 1)
	}
	return append(j, 0)
}

// openACL appends a vector holding world:anyone with every permission.
func (j jb) openACL() jb { return j.i32(1).i32(31).str("world").str("anyone") }

// create appends a CreateRequest.
func (j jb) create(path string, data string, flags int32) jb {
	return j.str(path).str(data).openACL().i32(flags)
}

// mh appends a MultiHeader.
func (j jb) mh(typ wire.Op, done bool, err int32) jb { return j.i32(int32(typ)).bool(done).i32(err) }

// mend appends the MultiHeader that ends a MultiOperationRecord.
func (j jb) mend() jb { return j.mh(-1, true, -1) }

// frame wraps a body in its length prefix.
func frame(body []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// req is a request frame: header and body.
func req(xid int32, op wire.Op, body jb) []byte {
	return frame(append(jb{}.i32(xid).i32(int32(op)), body...))
}

// connectReq is the ConnectRequest a 3.4+ client sends, readOnly false.
func connectReq(timeoutMs int32, sid int64, passwd []byte) []byte {
	return wire.AppendConnect(nil, wire.ConnectRequest{
		TimeoutMs: timeoutMs, SessionID: sid, Passwd: passwd, HasReadOnly: true,
	})
}

// jr reads jute records; a short read fails the whole description.
type jr struct {
	b   []byte
	err error
}

func (r *jr) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = errors.New("short")
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *jr) i32() int32 {
	if p := r.take(4); p != nil {
		return int32(binary.BigEndian.Uint32(p))
	}
	return 0
}

func (r *jr) i64() int64 {
	if p := r.take(8); p != nil {
		return int64(binary.BigEndian.Uint64(p))
	}
	return 0
}

func (r *jr) bool() bool {
	p := r.take(1)
	return p != nil && p[0] != 0
}

// str reads a string or buffer, quoted; null reads as "null".
func (r *jr) str() string {
	n := r.i32()
	if n == -1 {
		return "null"
	}
	return fmt.Sprintf("%q", r.take(int(n)))
}

func (r *jr) strs(sorted bool) string {
	n := r.i32()
	if n < 0 || int(n) > len(r.b) {
		return fmt.Sprintf("vector(%d)", n)
	}
	var out []string
	for range n {
		out = append(out, r.str())
	}
	if sorted {
		slices.Sort(out)
	}
	return "[" + strings.Join(out, " ") + "]"
}

// norm holds what a description normalises: the zxid the observation
// started at, the session id, and the path prefix every case works under.
type norm struct {
	z0   int64
	sid  int64
	root string
}

func (n *norm) zxid(z int64) string {
	switch {
	case z == -1 || z == 0:
		return fmt.Sprint(z)
	case z < n.z0:
		return "old"
	}
	return fmt.Sprintf("Z+%d", z-n.z0)
}

func (n *norm) path(s string) string { return strings.ReplaceAll(s, n.root, "/T") }

func (n *norm) stat(r *jr) string {
	czxid, mzxid := r.i64(), r.i64()
	r.i64() // ctime
	r.i64() // mtime
	v, cv, av := r.i32(), r.i32(), r.i32()
	owner := r.i64()
	dl, nc := r.i32(), r.i32()
	pzxid := r.i64()
	eph := "0"
	if owner == n.sid {
		eph = "self"
	} else if owner != 0 {
		eph = fmt.Sprintf("%#x", owner)
	}
	return fmt.Sprintf("stat{c=%s m=%s p=%s v=%d cv=%d av=%d eph=%s dl=%d nc=%d}",
		n.zxid(czxid), n.zxid(mzxid), n.zxid(pzxid), v, cv, av, eph, dl, nc)
}

// reply describes one reply frame; op is the type of the request with
// the reply's xid (0 if none was sent).
func (n *norm) reply(b []byte, op wire.Op) string {
	r := &jr{b: b}
	xid, zxid, code := r.i32(), r.i64(), r.i32()
	if r.err != nil {
		return fmt.Sprintf("short frame %x", b)
	}
	if op == 0 && xid == 0 && (len(b) == 36 || len(b) == 37) {
		return connectResp(b, n.sid)
	}
	head := fmt.Sprintf("xid=%d zxid=%s err=%d", xid, n.zxid(zxid), code)
	if xid == wire.XidWatch {
		typ, state := r.i32(), r.i32()
		return fmt.Sprintf("event %s type=%d state=%d path=%s", head, typ, state, n.path(r.str()))
	}
	body := n.body(r, op, code)
	if r.err != nil {
		return head + " unreadable body " + hex.EncodeToString(b[16:])
	}
	if len(r.b) > 0 {
		body += " +" + hex.EncodeToString(r.b)
	}
	return strings.TrimSpace(head + " " + body)
}

func (n *norm) body(r *jr, op wire.Op, code int32) string {
	if len(r.b) == 0 {
		return ""
	}
	switch op {
	case wire.OpMulti, wire.OpMultiRead:
		return n.multi(r)
	}
	if code != 0 {
		return ""
	}
	switch op {
	case wire.OpCreate, wire.OpSync:
		return n.path(r.str())
	case wire.OpCreate2, wire.OpCreateContainer, wire.OpCreateTTL:
		return n.path(r.str()) + " " + n.stat(r)
	case wire.OpExists, wire.OpSetData, wire.OpSetACL:
		return n.stat(r)
	case wire.OpGetData:
		return r.str() + " " + n.stat(r)
	case wire.OpGetChildren, wire.OpGetEphemerals:
		return n.path(r.strs(true))
	case wire.OpGetChildren2:
		return r.strs(true) + " " + n.stat(r)
	case wire.OpGetACL:
		return n.acl(r) + " " + n.stat(r)
	case wire.OpGetAllChildrenNumber, wire.OpAddWatch:
		return fmt.Sprint(r.i32())
	case wire.OpWhoAmI:
		return n.whoAmI(r)
	case wire.OpSASL:
		return "token=" + r.str()
	}
	return ""
}

func (n *norm) acl(r *jr) string {
	k := r.i32()
	var out []string
	for i := int32(0); i < k && r.err == nil; i++ {
		out = append(out, fmt.Sprintf("%d:%s:%s", r.i32(), r.str(), r.str()))
	}
	return "[" + strings.Join(out, " ") + "]"
}

func (n *norm) whoAmI(r *jr) string {
	k := r.i32()
	var out []string
	for i := int32(0); i < k && r.err == nil; i++ {
		out = append(out, r.str()+":"+r.str())
	}
	return "[" + strings.Join(out, " ") + "]"
}

// multi describes a MultiResponse: each result's header and body.
func (n *norm) multi(r *jr) string {
	var out []string
	for r.err == nil {
		typ, done, code := wire.Op(r.i32()), r.bool(), r.i32()
		if done {
			out = append(out, fmt.Sprintf("end(%d,%d)", typ, code))
			break
		}
		res := fmt.Sprintf("%s/%d", typ, code)
		switch typ {
		case wire.OpCreate:
			res += " " + n.path(r.str())
		case wire.OpCreate2:
			res += " " + n.path(r.str()) + " " + n.stat(r)
		case wire.OpSetData:
			res += " " + n.stat(r)
		case wire.OpGetData:
			res += " " + r.str() + " " + n.stat(r)
		case wire.OpGetChildren:
			res += " " + r.strs(true)
		case -1:
			res += fmt.Sprintf(" {%d}", r.i32())
		}
		out = append(out, res)
	}
	return "multi[" + strings.Join(out, ", ") + "]"
}

// connectResp describes a ConnectResponse with the session id reduced to
// 0, same (as prev) or new, and the password to whether it is zero.
func connectResp(b []byte, prev int64) string {
	r := &jr{b: b}
	proto, timeout, sid := r.i32(), r.i32(), r.i64()
	pw := r.take(int(r.i32()))
	if r.err != nil {
		return fmt.Sprintf("short connect response %x", b)
	}
	sidS, pwS := "new", "set"
	switch sid {
	case 0:
		sidS = "0"
	case prev:
		sidS = "same"
	}
	if len(pw) == 0 || !slices.ContainsFunc(pw, func(c byte) bool { return c != 0 }) {
		pwS = "zero"
	}
	return fmt.Sprintf("connect proto=%d timeout=%d sid=%s passwd(%d)=%s readOnly=%x",
		proto, timeout, sidS, len(pw), pwS, r.b)
}

// rawConn is one raw client connection.
type rawConn struct {
	t  testing.TB
	nc net.Conn
	r  *bufio.Reader
}

func dialRaw(t testing.TB, addr string) *rawConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawConn{t: t, nc: nc, r: bufio.NewReader(nc)}
}

// write sends b; a failure (the server already closed) is left for the
// next read to see.
func (c *rawConn) write(b []byte) {
	c.nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
	c.nc.Write(b)
}

// errQuiet: nothing arrived within the wait and the connection is open.
var errQuiet = errors.New("quiet")

// frame reads the next frame within d: its body, or errQuiet, or the
// error that ended the stream (io.EOF, a reset).
func (c *rawConn) frame(d time.Duration) ([]byte, error) {
	c.nc.SetReadDeadline(time.Now().Add(d))
	var n [4]byte
	if _, err := io.ReadFull(c.r, n[:]); err != nil {
		return nil, classify(err)
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > 1<<20 {
		return nil, fmt.Errorf("frame length %d", size)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(c.r, b); err != nil {
		return nil, classify(err)
	}
	return b, nil
}

// rest reads whatever arrives until the server closes or d passes.
func (c *rawConn) rest(d time.Duration) ([]byte, error) {
	c.nc.SetReadDeadline(time.Now().Add(d))
	b, err := io.ReadAll(c.r)
	return b, classify(err)
}

func classify(err error) error {
	var ne net.Error
	switch {
	case err == nil:
		return io.EOF
	case errors.As(err, &ne) && ne.Timeout():
		return errQuiet
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, os.ErrClosed):
		return io.EOF
	}
	return err
}

// handshake opens a session (or resumes sid) and returns the response.
func (c *rawConn) handshake(timeoutMs int32, sid int64, passwd []byte) (int64, []byte, int32) {
	c.t.Helper()
	c.write(connectReq(timeoutMs, sid, passwd))
	b, err := c.frame(5 * time.Second)
	if err != nil {
		c.t.Fatalf("handshake: %v", err)
	}
	r := &jr{b: b}
	r.i32()
	timeout, id := r.i32(), r.i64()
	pw := r.take(int(r.i32()))
	return id, pw, timeout
}

// zxid asks the server for its last zxid (the zxid of an exists reply),
// with the given xid; replies before it are returned too.
func (c *rawConn) zxid(xid int32) (int64, [][]byte) {
	c.t.Helper()
	c.write(req(xid, wire.OpExists, jb{}.str("/").bool(false)))
	var before [][]byte
	for {
		b, err := c.frame(5 * time.Second)
		if err != nil {
			c.t.Fatalf("waiting for the reply to xid %d: %v", xid, err)
		}
		if int32(binary.BigEndian.Uint32(b)) == xid {
			return int64(binary.BigEndian.Uint64(b[4:])), before
		}
		before = append(before, b)
	}
}

// newFake starts a fake server on a loopback port; it is closed when the
// test ends.
func newFake(t testing.TB, cfg netserver.Config) (*netserver.Server, string) {
	t.Helper()
	if cfg.Machine.TickMillis == 0 {
		cfg.Machine = machine.Config{TickMillis: 500}
	}
	return zktest.ServeFake(t, cfg)
}

// checkLeaks fails t if goroutines started during it outlive it: the
// check runs after every cleanup registered later (the server's Close),
// and goleak retries until a deadline before it fails.
func checkLeaks(t testing.TB) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}
