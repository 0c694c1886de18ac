package wire_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/google/go-cmp/cmp"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/zkapi"
)

// The decoders face whatever a client sends, so they are fuzzed: none may
// panic, a decoded request must not alias the frame (the server reuses
// its buffer), and what decodes re-encodes to the same request. Seeds are
// in seeds() and testdata/fuzz/<FuzzName>/ (inputs kept from fuzzing runs).

// body strips a frame's length prefix.
func body(frame []byte) []byte { return frame[4:] }

// seeds are well-formed frames of every kind the server meets.
func seeds() [][]byte {
	create := proto.Create{Path: "/a", Data: []byte("d"), Mode: zkapi.EphemeralSequential}
	multi := proto.Multi{Ops: []zkapi.Op{
		zkapi.CreateOp{Path: "/m", Mode: zkapi.Container}, zkapi.SetOp{Path: "/m", Data: nil, Version: 2},
		zkapi.CheckOp{Path: "/m", Version: -1}, zkapi.DeleteOp{Path: "/m", Version: -1},
	}}
	frames := [][]byte{
		wire.AppendRequest(nil, 1, wire.OpCreate, create),
		wire.AppendRequest(nil, 2, wire.OpCreate2, create),
		wire.AppendRequest(nil, 3, wire.OpGetData, proto.GetData{Path: "/a", Watch: true}),
		wire.AppendRequest(nil, 4, wire.OpGetChildren2, proto.GetChildren{Path: "/"}),
		wire.AppendRequest(nil, 5, wire.OpMulti, multi),
		wire.AppendRequest(nil, 6, wire.OpCheck, proto.Multi{Ops: []zkapi.Op{zkapi.CheckOp{Path: "/a", Version: 1}}}),
		wire.AppendRequest(nil, -8, wire.OpSetWatches2, proto.SetWatches{RelativeZxid: 9, Data: []string{"/a"}, Child: []string{"/"}}),
		wire.AppendRequest(nil, -2, wire.OpPing, nil),
		wire.AppendRequest(nil, 7, wire.OpSync, proto.Sync{Path: "/"}),
		wire.AppendRequest(nil, 8, wire.OpSetData, proto.SetData{Path: "/a", Data: []byte{}, Version: -1}),
	}
	raw := func(xid int32, op wire.Op, fields ...[]byte) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(xid))
		b = binary.BigEndian.AppendUint32(b, uint32(op))
		for _, f := range fields {
			b = append(b, f...)
		}
		return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
	}
	str := func(s string) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...) }
	i32 := func(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
	frames = append(frames,
		raw(-4, wire.OpAuth, i32(0), str("digest"), str("u:p")),
		raw(9, wire.OpSASL, i32(-1)),
		raw(1, wire.OpSetACL, str("/a"), i32(1), i32(31), str("world"), str("anyone"), i32(-1)),
		raw(1, wire.OpRemoveWatches, str("/a"), i32(3)),
		raw(1, wire.OpMultiRead, i32(4), []byte{0}, i32(-1), str("/a"), []byte{0}, i32(-1), []byte{1}, i32(-1)),
		raw(1, wire.OpCreateTTL, str("/t"), i32(-1), i32(0), i32(5), []byte{0, 0, 0, 0, 0, 0, 3, 0xe8}),
		raw(1, wire.OpGetData, i32(-1), []byte{0}),
		raw(1, 99),
		raw(1, wire.OpGetData)[:9],
	)
	return frames
}

// FuzzReadFrame: ReadFrame reads exactly the frames a stream holds and
// refuses lengths outside [0, max] without reading on.
func FuzzReadFrame(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s, 64)
		f.Add(append(s, s...), machine.DefaultMaxFrame)
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, 64)
	f.Add([]byte{0, 0, 0}, 64)
	f.Fuzz(func(t *testing.T, stream []byte, max int) {
		max &= 1<<20 - 1
		r := bytes.NewReader(stream)
		var buf []byte
		for off := 0; ; {
			frame, err := wire.ReadFrame(r, buf, max)
			rest := stream[off:]
			switch {
			case err == nil:
				n := int(int32(binary.BigEndian.Uint32(rest)))
				if n != len(frame) || n > max || !bytes.Equal(frame, rest[4:4+n]) {
					t.Fatalf("frame %x at offset %d of %x (max %d)", frame, off, stream, max)
				}
				off += 4 + n
				buf = frame
				continue
			case errors.Is(err, io.EOF):
				if len(rest) != 0 {
					t.Fatalf("EOF with %d bytes left", len(rest))
				}
			case errors.Is(err, io.ErrUnexpectedEOF):
				if len(rest) == 0 {
					t.Fatal("unexpected EOF at a frame boundary")
				}
			case errors.Is(err, wire.ErrFrameSize):
				if n := int32(binary.BigEndian.Uint32(rest)); n >= 0 && int(n) <= max {
					t.Fatalf("length %d refused with max %d", n, max)
				}
			default:
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
	})
}

// FuzzDecodeConnect: a decoded ConnectRequest re-encodes to itself.
func FuzzDecodeConnect(f *testing.F) {
	f.Add(body(wire.AppendConnect(nil, wire.ConnectRequest{TimeoutMs: 4000, HasReadOnly: true})))
	f.Add(body(wire.AppendConnect(nil, wire.ConnectRequest{ProtocolVersion: 99, LastZxidSeen: 7, SessionID: 1 << 56, Passwd: make([]byte, 16)})))
	f.Add(append(body(wire.AppendConnect(nil, wire.ConnectRequest{Passwd: []byte{}, HasReadOnly: true, ReadOnly: true})), "junk"...))
	f.Add([]byte{0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, input []byte) {
		frame := bytes.Clone(input) // scribbled on below; the input is the engine's
		c, err := wire.DecodeConnect(frame)
		if err != nil {
			if !errors.Is(err, wire.ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		scribble(frame)
		again, err := wire.DecodeConnect(body(wire.AppendConnect(nil, c)))
		if err != nil {
			t.Fatalf("re-encoded %+v does not decode: %v", c, err)
		}
		if diff := cmp.Diff(c, again); diff != "" {
			t.Fatalf("round trip (-decoded +re-decoded):\n%s", diff)
		}
	})
}

// FuzzDecodeRequest: decoding never panics, sorts each request into
// exactly one of Body, Local and Code (or none, for ping and
// closeSession), keeps nothing of the frame, and a request for the
// Machine re-encodes to itself.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range seeds() {
		f.Add(body(s))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		frame := bytes.Clone(input) // scribbled on below; the input is the engine's
		req, err := wire.DecodeRequest(frame)
		if err != nil {
			if !errors.Is(err, wire.ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		checkSorted(t, req)
		fresh, _ := wire.DecodeRequest(input)
		scribble(frame)
		if diff := cmp.Diff(fresh, req); diff != "" {
			t.Fatalf("the decoded request changed with its frame (-fresh +kept):\n%s", diff)
		}
		if !reencodable(req) {
			return
		}
		again, err := wire.DecodeRequest(body(wire.AppendRequest(nil, req.Xid, req.Op, req.Body)))
		if err != nil {
			t.Fatalf("re-encoded %v does not decode: %v", req.Body, err)
		}
		if diff := cmp.Diff(req.Body, again.Body); diff != "" || again.Op != req.Op || again.Xid != req.Xid {
			t.Fatalf("round trip of %s %v (-decoded +re-decoded):\n%s", req.Op, req.Body, diff)
		}
	})
}

// scribble overwrites a frame, as the server's next read does.
func scribble(b []byte) {
	for i := range b {
		b[i] = 0xa5
	}
}

func checkSorted(t *testing.T, req wire.Request) {
	t.Helper()
	set := 0
	for _, ok := range []bool{req.Body != nil, req.Local != nil, req.Code != 0} {
		if ok {
			set++
		}
	}
	switch {
	case set > 1:
		t.Fatalf("%s decoded to more than one of Body, Local and Code: %+v", req.Op, req)
	case set == 0 && req.Op != wire.OpPing && req.Op != wire.OpCloseSession:
		t.Fatalf("%s decoded to none of Body, Local and Code", req.Op)
	case !req.Op.Known() && req.Code != wire.CodeUnimplemented:
		t.Fatalf("unknown %s decoded to code %d, want Unimplemented", req.Op, req.Code)
	case req.Txn && (req.Code == 0 || !req.Op.Write()):
		t.Fatalf("%s: a transaction for a refusal %d of a read", req.Op, req.Code)
	case req.Op == wire.OpMulti && req.Body != nil && len(req.MultiOps) != len(req.Body.(proto.Multi).Ops):
		t.Fatalf("multi of %d ops described by %d", len(req.Body.(proto.Multi).Ops), len(req.MultiOps))
	}
}

// reencodable: AppendRequest can say it all (no refused multi op, no
// null sync path).
func reencodable(req wire.Request) bool {
	if req.Body == nil || req.NullPath {
		return false
	}
	for _, op := range req.MultiOps {
		if op.Code != 0 {
			return false
		}
	}
	return true
}
