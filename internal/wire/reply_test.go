package wire_test

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/zkapi"
)

// unhex reads a hex literal written with spaces between the fields.
func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex literal %q: %v", s, err)
	}
	return b
}

// TestDecodeConnectResponse_Spec decodes frame bodies written out by hand
// from zookeeper.jute's ConnectResponse (protocolVersion, timeOut,
// sessionId, passwd, optional readOnly), so that the decoder is checked
// against the layout, not against the encoder.
func TestDecodeConnectResponse_Spec(t *testing.T) {
	passwd := unhex(t, "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")
	for _, tc := range []struct {
		name, body string
		want       wire.ConnectResponse
	}{
		{"readOnly false", "00000000 00000fa0 0102030405060708 00000010 a0a1a2a3a4a5a6a7a8a9aaabacadaeaf 00",
			wire.ConnectResponse{TimeoutMs: 4000, SessionID: 0x0102030405060708, Passwd: passwd}},
		{"readOnly true", "00000000 00000fa0 0102030405060708 00000010 a0a1a2a3a4a5a6a7a8a9aaabacadaeaf 01",
			wire.ConnectResponse{TimeoutMs: 4000, SessionID: 0x0102030405060708, Passwd: passwd, ReadOnly: true}},
		{"no readOnly", "00000000 00000fa0 0102030405060708 00000010 a0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
			wire.ConnectResponse{TimeoutMs: 4000, SessionID: 0x0102030405060708, Passwd: passwd}},
		{"refused", "00000000 00000000 0000000000000000 00000010 00000000000000000000000000000000 00",
			wire.ConnectResponse{Passwd: make([]byte, 16)}},
		{"null passwd", "00000000 00000fa0 0102030405060708 ffffffff", wire.ConnectResponse{TimeoutMs: 4000, SessionID: 0x0102030405060708}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := wire.DecodeConnectResponse(unhex(t, tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeConnectResponse_Malformed(t *testing.T) {
	for name, body := range map[string]string{
		"empty":           "",
		"no passwd":       "00000000 00000fa0 0102030405060708",
		"short passwd":    "00000000 00000fa0 0102030405060708 00000010 a0a1",
		"negative length": "00000000 00000fa0 0102030405060708 fffffff0",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := wire.DecodeConnectResponse(unhex(t, body)); !errors.Is(err, wire.ErrMalformed) {
				t.Fatalf("DecodeConnectResponse = %v, want ErrMalformed", err)
			}
		})
	}
}

// TestDecodeConnectResponse_RoundTrip: what the server writes, a client
// reads back, with or without the readOnly flag.
func TestDecodeConnectResponse_RoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		withRO := rapid.Bool().Draw(t, "with readOnly")
		want := wire.ConnectResponse{
			ProtocolVersion: rapid.Int32().Draw(t, "protocolVersion"),
			TimeoutMs:       rapid.Int32().Draw(t, "timeout"),
			SessionID:       rapid.Int64().Draw(t, "session"),
			Passwd:          rapid.SliceOfN(rapid.Byte(), 0, 20).Draw(t, "passwd"),
			ReadOnly:        withRO && rapid.Bool().Draw(t, "readOnly"),
		}
		got, err := wire.DecodeConnectResponse(body(wire.AppendConnectResponse(nil, want, withRO)))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("(-sent +decoded):\n%s", diff)
		}
	})
}

// TestDecodeReplyHeader_Spec: xid 1, zxid 0x2a, err -114 (SessionMoved),
// then a body the header decoder leaves alone.
func TestDecodeReplyHeader_Spec(t *testing.T) {
	got, err := wire.DecodeReplyHeader(unhex(t, "00000001 000000000000002a ffffff8e 00000000"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (wire.ReplyHeader{Xid: 1, Zxid: 0x2a, Err: -114}); got != want {
		t.Fatalf("DecodeReplyHeader = %+v, want %+v", got, want)
	}
	if _, err := wire.DecodeReplyHeader(unhex(t, "00000001 000000000000002a ffff")); !errors.Is(err, wire.ErrMalformed) {
		t.Fatalf("short header: %v, want ErrMalformed", err)
	}
}

func TestDecodeReplyHeader_RoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		want := wire.ReplyHeader{Xid: rapid.Int32().Draw(t, "xid"), Zxid: rapid.Int64().Draw(t, "zxid"), Err: rapid.Int32().Draw(t, "err")}
		got, err := wire.DecodeReplyHeader(body(wire.AppendHeader(nil, want.Xid, want.Zxid, want.Err)))
		if err != nil || got != want {
			t.Fatalf("DecodeReplyHeader = %+v, %v; want %+v", got, err, want)
		}
	})
}

// TestDecodeEvent_Spec decodes a notification written out by hand from
// zookeeper.jute (ReplyHeader xid -1, zxid -1, err 0; WatcherEvent type,
// state, path), and the one AppendNotification writes: the client side
// (zkapi/gozk's shim) reads what the server side writes.
func TestDecodeEvent_Spec(t *testing.T) {
	want := zkapi.Event{Type: zkapi.EventNodeDataChanged, Path: "/a/b"}
	byHand := unhex(t, "ffffffff ffffffffffffffff 00000000 00000003 00000003 00000004 2f612f62")
	encoded := wire.AppendNotification(nil, proto.Notification{Zxid: 7, Event: want})[4:]
	for name, frame := range map[string][]byte{"by hand": byHand, "encoded": encoded} {
		h, rec, err := wire.DecodeReply(frame)
		if err != nil || h != (wire.ReplyHeader{Xid: wire.XidWatch, Zxid: -1}) {
			t.Fatalf("%s: header %+v, %v", name, h, err)
		}
		ev, err := wire.DecodeEvent(rec)
		if err != nil || ev != want {
			t.Fatalf("%s: event %v, %v; want %v", name, ev, err, want)
		}
	}
}

func TestDecodeEvent_Malformed(t *testing.T) {
	for name, rec := range map[string]string{
		"empty":          "",
		"no path":        "00000003 00000003",
		"path too short": "00000003 00000003 00000004 2f61",
	} {
		if _, err := wire.DecodeEvent(unhex(t, rec)); !errors.Is(err, wire.ErrMalformed) {
			t.Errorf("%s: err %v, want ErrMalformed", name, err)
		}
	}
	if _, _, err := wire.DecodeReply(unhex(t, "ffffffff ffffffff")); !errors.Is(err, wire.ErrMalformed) {
		t.Errorf("short header: err %v, want ErrMalformed", err)
	}
}
