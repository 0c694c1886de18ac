package netserver

import (
	"encoding/binary"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/zkapi"
)

// These benchmarks measure getEphemerals and getAllChildrenNumber on a
// tree of about 100k nodes (issue 22: both walked the whole tree under the
// server's lock), side by side with the whole-tree walk they replaced
// (walk, in local_test.go, kept as the reference). The Local ones call
// the answers directly, a bare conn standing for the session's
// connection; the Server one goes over loopback.

const (
	benchDirs     = 100
	benchPerDir   = 1000
	benchEphemera = 5
)

// benchServer is a server whose tree holds benchDirs*benchPerDir
// persistent nodes under /bench and benchEphemera ephemerals of the
// returned connection's session under /bench/e.
func benchServer(b *testing.B) (*Server, *conn) {
	b.Helper()
	s, err := New(Config{Machine: machine.Config{TickMillis: 1000}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	s.mu.Lock() // the server's clock ticks the Machine too
	defer s.mu.Unlock()
	info, err := s.m.CreateSession(0, 30000)
	if err != nil {
		b.Fatal(err)
	}
	id := info.ID
	mustCreate(b, s.m, id, "/bench", zkapi.Persistent)
	mustCreate(b, s.m, id, "/bench/e", zkapi.Persistent)
	for d := range benchDirs {
		dir := fmt.Sprintf("/bench/d%03d", d)
		mustCreate(b, s.m, id, dir, zkapi.Persistent)
		for n := range benchPerDir {
			mustCreate(b, s.m, id, fmt.Sprintf("%s/n%04d", dir, n), zkapi.Persistent)
		}
	}
	for e := range benchEphemera {
		mustCreate(b, s.m, id, fmt.Sprintf("/bench/e/x%d", e), zkapi.Ephemeral)
	}
	return s, &conn{s: s, session: id}
}

func mustCreate(b *testing.B, m *machine.Machine, id int64, path string, mode zkapi.CreateMode) {
	if rep := m.Do(id, proto.Create{Path: path, Mode: mode}); rep.Err != nil {
		b.Fatalf("create %s: %v", path, rep.Err)
	}
}

func BenchmarkLocal_GetEphemerals(b *testing.B) {
	s, c := benchServer(b)
	s.mu.Lock() // as the server holds it while it answers
	defer s.mu.Unlock()
	want := walkEphemerals(s, c.session, "/")
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			walkEphemerals(s, c.session, "/")
		}
	})
	b.Run("served", func(b *testing.B) {
		for b.Loop() {
			if got := s.ephemerals(c.session, "/"); len(got) != len(want) {
				b.Fatalf("served %d ephemerals, want %d", len(got), len(want))
			}
		}
	})
}

func BenchmarkLocal_GetAllChildrenNumber(b *testing.B) {
	s, c := benchServer(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	want := walkAllChildrenNumber(s, "/")
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			walkAllChildrenNumber(s, "/")
		}
	})
	b.Run("served", func(b *testing.B) {
		for b.Loop() {
			code, body := s.allChildrenNumber(c, "/")
			if got := body.(wire.IntResponse).N; code != 0 || got != want {
				b.Fatalf("served %d (code %d), want %d", got, code, want)
			}
		}
	})
}

// BenchmarkServer_GetDataBesideAllChildrenNumber times one client's
// getData over loopback, alone and while another client asks
// getAllChildrenNumber("/") of the 100k-node tree back to back: ns/op is
// the getData round trip, max-ns the longest one (how long the server's
// lock stalled it). Before issue 22 the count walked the tree under the
// lock: run it on the parent commit to compare.
func BenchmarkServer_GetDataBesideAllChildrenNumber(b *testing.B) {
	s, _ := benchServer(b)
	addr, err := s.Listen("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	reader := dialSession(b, addr.String())
	counter := dialSession(b, addr.String())
	count := frameOf(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 1),
		uint32(wire.OpGetAllChildrenNumber)), "/")
	b.Run("alone", func(b *testing.B) { timeGetData(b, reader, nil) })
	b.Run("served", func(b *testing.B) {
		timeGetData(b, reader, func() error { return roundTrip(counter, count) })
	})
}

// timeGetData times getData round trips on reader while busy runs in a
// loop beside them (if not nil).
func timeGetData(b *testing.B, reader net.Conn, busy func() error) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	if busy != nil {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if busy() != nil {
					return
				}
			}
		})
	}
	get := wire.AppendRequest(nil, 1, wire.OpGetData, proto.GetData{Path: "/bench/e"})
	var worst time.Duration
	for b.Loop() {
		start := time.Now()
		if err := roundTrip(reader, get); err != nil {
			b.Fatal(err)
		}
		worst = max(worst, time.Since(start))
	}
	close(stop)
	wg.Wait()
	b.ReportMetric(float64(worst.Nanoseconds()), "max-ns")
}

// frameOf appends a jute string to a request header and frames it.
func frameOf(header []byte, str string) []byte {
	body := append(binary.BigEndian.AppendUint32(header, uint32(len(str))), str...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// dialSession connects and completes a handshake.
func dialSession(b *testing.B, addr string) net.Conn {
	b.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { nc.Close() })
	if err := roundTrip(nc, wire.AppendConnect(nil, wire.ConnectRequest{TimeoutMs: 30000})); err != nil {
		b.Fatal(err)
	}
	return nc
}

// roundTrip sends one frame and reads one back.
func roundTrip(nc net.Conn, frame []byte) error {
	if _, err := nc.Write(frame); err != nil {
		return err
	}
	_, err := wire.ReadFrame(nc, nil, 1<<20)
	return err
}

// BenchmarkLocal_Srvr is the srvr four-letter word, answered to anyone by
// default, whose node count walked the tree.
func BenchmarkLocal_Srvr(b *testing.B) {
	s, _ := benchServer(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			nodes := 1
			walk(s.m, "/", func(string, zkapi.Stat) { nodes++ })
		}
	})
	b.Run("served", func(b *testing.B) {
		for b.Loop() {
			s.srvr(0, "")
		}
	})
}
