package zkclient_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/zkclient"
	"github.com/zksim/zksim/zkapi"
)

// attachScript answers attach for each replica from a table (nil: takes
// the session) and records the replicas tried, in order.
type attachScript struct {
	answer map[int]error
	tried  []int
}

func (a *attachScript) attach(replica int) error {
	a.tried = append(a.tried, replica)
	return a.answer[replica]
}

// replicas is the config of an ensemble of n servers.
func replicas(n int) machine.Config { return machine.Config{Followers: n - 1} }

var behind = zkapi.ErrConnectionLoss // a replica behind the client refuses it

// go-zookeeper moves on to the next server at every connect, even when
// the one it had is healthy (dnshostprovider.go Next).
func TestSession_ReconnectNextMovesOn(t *testing.T) {
	s := zkclient.NewSession[int, int](replicas(3), 1)
	a := &attachScript{}
	if err := s.Reconnect(a.attach); err != nil || s.Replica != 2 || !slices.Equal(a.tried, []int{2}) {
		t.Fatalf("err %v, replica %d, tried %v; want nil, 2, [2]", err, s.Replica, a.tried)
	}
}

// A replica behind the client refuses it: a failed connect, and the next
// replica in turn is tried, the one it had last.
func TestSession_ReconnectNextSkipsRefusals(t *testing.T) {
	s := zkclient.NewSession[int, int](replicas(3), 1)
	a := &attachScript{answer: map[int]error{2: behind, 0: behind}}
	if err := s.Reconnect(a.attach); err != nil || s.Replica != 1 || !slices.Equal(a.tried, []int{2, 0, 1}) {
		t.Fatalf("err %v, replica %d, tried %v; want nil, 1, [2 0 1]", err, s.Replica, a.tried)
	}
	a = &attachScript{answer: map[int]error{0: behind, 1: behind, 2: behind}}
	if err := s.Reconnect(a.attach); err == nil || len(a.tried) != 3 {
		t.Fatalf("every replica refused: err %v after %v, want an error after one round", err, a.tried)
	}
}

// On expiry go-zookeeper forgets its lastZxid and opens the new session
// on the next server (conn.go authenticate, loop).
func TestSession_ExpiredNextMovesOnAndForgetsZxid(t *testing.T) {
	s := zkclient.NewSession[int, int](replicas(2), 1)
	s.Opened(5)
	s.Replied(proto.Reply{Zxid: 12})
	s.Expired(true)
	if s.Replica != 0 {
		t.Fatalf("new session on replica %d, want 0", s.Replica)
	}
	if s.Opened(6); s.LastZxid != 0 {
		t.Fatalf("LastZxid %d after a new session, want 0", s.LastZxid)
	}
}

func TestSession_ReconnectStopsAtExpiry(t *testing.T) {
	s := zkclient.NewSession[int, int](replicas(3), 0)
	a := &attachScript{answer: map[int]error{1: behind, 2: zkapi.ErrSessionExpired}}
	if err := s.Reconnect(a.attach); !errors.Is(err, zkapi.ErrSessionExpired) || s.Replica != 2 {
		t.Fatalf("err %v, replica %d; want ErrSessionExpired on 2", err, s.Replica)
	}
}

func TestSession_ExpiredReportsDisconnectedFirst(t *testing.T) {
	for _, tc := range []struct {
		connected bool
		want      []zkapi.State
	}{
		{true, []zkapi.State{zkapi.StateDisconnected, zkapi.StateExpired}},
		{false, []zkapi.State{zkapi.StateExpired}},
	} {
		s := zkclient.NewSession[int, int](replicas(1), 0)
		s.Watches.Add("/a", zkclient.KindData, 7)
		s.Persistent.Add("/", true, 8)
		states, ws, ps := s.Expired(tc.connected)
		if !slices.Equal(states, tc.want) || !slices.Equal(ws, []int{7}) || !slices.Equal(ps, []int{8}) {
			t.Errorf("connected %v: states %v, watches %v, persistent %v", tc.connected, states, ws, ps)
		}
		if s.Watches.Len()+s.Persistent.Len() != 0 {
			t.Errorf("connected %v: handles left after expiry", tc.connected)
		}
	}
}

func TestSession_RewatchCarriesLastZxid(t *testing.T) {
	s := zkclient.NewSession[int, int](replicas(1), 0)
	if _, ok := s.Rewatch(); ok {
		t.Fatal("Rewatch with no watch: want none")
	}
	s.Opened(5)
	s.Replied(proto.Reply{Zxid: 10})
	s.Replied(proto.Reply{Zxid: 12})
	s.Replied(proto.Reply{Zxid: 11}) // an older zxid never goes back
	s.Watches.Add("/a", zkclient.KindExist, 1)
	s.Persistent.Add("/p", false, 2)
	sw, ok := s.Rewatch()
	if !ok || sw.RelativeZxid != 12 || !slices.Equal(sw.Exist, []string{"/a"}) || !slices.Equal(sw.Persistent, []string{"/p"}) {
		t.Fatalf("Rewatch = %+v, %v", sw, ok)
	}
	s.Rewatched(proto.Reply{Zxid: 20})
	if s.LastZxid != 20 {
		t.Fatalf("after Rewatched, LastZxid %d, want 20", s.LastZxid)
	}
}

func TestSession_AuthedKeepsACopy(t *testing.T) {
	var s zkclient.Session[int, int]
	data := []byte("u:p")
	s.Authed(proto.AddAuth{Scheme: "digest", Data: data})
	data[0] = 'x'
	if got := s.Creds(); len(got) != 1 || string(got[0].Data) != "u:p" {
		t.Fatalf("Creds = %+v", got)
	}
}
