package fakezk_test

import (
	"slices"
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/internal/machine"
)

// TakeNotified lists each session whose queue filled since the last call
// once, in id order, and only those: a server over many sessions visits
// these instead of all.
func TestMachine_TakeNotified(t *testing.T) {
	m, _ := machine.NewMachine(machine.Config{})
	var ids []int64
	for range 3 {
		info, err := m.CreateSession(0, 4000)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, info.ID)
	}
	// Sessions 2 and 0 watch /a (in that order), session 1 does not.
	for _, k := range []int{2, 0} {
		m.Do(ids[k], proto.Exists{Path: "/a", Watch: true})
		m.Do(ids[k], proto.Exists{Path: "/b", Watch: true})
	}
	if got := m.TakeNotified(); len(got) != 0 {
		t.Fatalf("before any change: %x", got)
	}
	m.Do(ids[1], proto.Create{Path: "/a"})
	m.Do(ids[1], proto.Create{Path: "/b"})
	if got, want := m.TakeNotified(), []int64{ids[0], ids[2]}; !slices.Equal(got, want) {
		t.Fatalf("after the creates: %x, want %x", got, want)
	}
	if got := m.TakeNotified(); len(got) != 0 {
		t.Fatalf("taken twice: %x", got)
	}
	if n := len(m.TakeNotifications(ids[2])); n != 2 {
		t.Fatalf("session 2 has %d notifications, want 2", n)
	}
}

// EndedSessions counts closes and expiries, so that a server knows when
// to look for sessions gone behind its back.
func TestMachine_EndedSessions(t *testing.T) {
	m, _ := machine.NewMachine(machine.Config{})
	a, _ := m.CreateSession(0, 4000)
	b, _ := m.CreateSession(0, 4000)
	if n := m.EndedSessions(); n != 0 {
		t.Fatalf("at start: %d", n)
	}
	m.CloseSession(a.ID)
	m.Expire(b.ID)
	m.Expire(b.ID) // already gone: not counted again
	if n := m.EndedSessions(); n != 2 {
		t.Fatalf("after a close and an expiry: %d, want 2", n)
	}
}
