package machine_test

import (
	"reflect"
	"testing"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// A Machine hashes nothing when nothing changed since its last
// Fingerprint: every exported method that can change it counts a
// generation first. The interaction files check the methods they call
// (TestFingerprint_KeptIsFresh); these are the others that change what
// a fingerprint hashes: each must change the fingerprint, as hashed from
// scratch, right after one was taken.
func TestFingerprint_FollowsEveryChange(t *testing.T) {
	m, err := machine.NewMachine(machine.Config{TickMillis: 1000})
	if err != nil {
		t.Fatal(err)
	}
	info, err := m.CreateSession(0, 4000)
	if err != nil {
		t.Fatal(err)
	}
	id := info.ID
	config := func(zxid int64) []byte { return []byte{byte(zxid)} }
	// taken queues a notification at path, fingerprints the Machine with
	// it queued, then takes it with take.
	taken := func(path string, take func(int64) []proto.Notification) func() {
		return func() {
			m.Do(id, proto.Exists{Path: path, Watch: true})
			m.Do(id, proto.Create{Path: path, Mode: zkapi.Persistent})
			m.Fingerprint()
			if len(take(id)) != 1 {
				t.Fatal("no notification queued")
			}
		}
	}
	for _, tc := range []struct {
		name   string
		change func()
	}{
		{"Renegotiate", func() { m.Renegotiate(id, 6000) }},
		{"RenewSessions", func() { m.Detach(id); m.Tick(); m.Fingerprint(); m.RenewSessions() }},
		{"Attach", func() { _ = m.Attach(id, 0, 0) }},
		{"SetAddress", func() { m.SetAddress(id, "10.0.0.7") }},
		{"AddIdentity", func() { m.AddIdentity(id, machine.AuthID{Scheme: "sasl", ID: "alice"}) }},
		{"InitConfig", func() { m.InitConfig(config) }},
		{"Reconfig", func() { m.Reconfig(id, config) }},
		{"TakeNotifications", taken("/n", m.TakeNotifications)},
		{"DrainNotifications", taken("/d", m.DrainNotifications)},
	} {
		before := m.Fingerprint()
		tc.change()
		if kept, fresh := m.Fingerprint(), m.FingerprintFresh(); kept != fresh || fresh == before {
			t.Errorf("%s: fingerprint %x before, %x after, %x hashed from scratch", tc.name, before, kept, fresh)
		}
	}
}

// Every exported method of Machine is either one that counts a
// generation (it may change what Fingerprint hashes, which Fingerprint
// then hashes again) or one that changes nothing it hashes. A method
// added without being put in one of these lists fails here: a change
// that counted no generation would leave Fingerprint answering the
// state before it, and a search would merge two states that differ.
func TestFingerprint_EveryMethodClassified(t *testing.T) {
	counts := []string{ // each has m.gen++; checked by the tests above and the interaction files
		"AddIdentity", "Attach", "CatchUp", "CloseSession", "CreateSession", "Detach", "Do",
		"DrainNotifications", "Expire", "InitConfig", "ReapContainers", "Reconfig", "Renegotiate",
		"RenewSessions", "SetAddress", "SetSequence", "TakeNotifications", "Tick",
	}
	reads := []string{ // change nothing a fingerprint hashes
		"Alive", "CheckPerm", "CheckWatches", "Children", "Config", "Descendants", "DigestCan", "Due",
		"EndedSessions", "EphemeralCount", "Ephemerals", "Fingerprint", "FingerprintAs", "FingerprintFresh",
		"HeldWatches", "Identities", "Node", "NodeCount", "Now", "Posted", "ReplicaZxid", "SessionIDs",
		"SessionTimeout", "SessionWatchCount", "WatchCount", "Watchers", "WatchesAdded", "Watching", "Zxid",
		// UseClock changes the times later changes stamp, not the state;
		// TakeNotified, which sessions a server visits; RegisterSASL is
		// set up before the Machine serves anyone.
		"UseClock", "TakeNotified", "RegisterSASL",
	}
	known := map[string]bool{}
	for _, name := range append(counts, reads...) {
		known[name] = true
	}
	typ := reflect.TypeFor[*machine.Machine]()
	for i := range typ.NumMethod() {
		if name := typ.Method(i).Name; !known[name] {
			t.Errorf("Machine.%s is in neither list: if it can change what Fingerprint hashes, make it count a generation (m.gen++) and test it in TestFingerprint_FollowsEveryChange; else list it as a read", name)
		}
		delete(known, typ.Method(i).Name)
	}
	for name := range known {
		t.Errorf("Machine.%s is listed but is no method of Machine", name)
	}
}
