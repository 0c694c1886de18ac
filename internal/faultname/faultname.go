// Package faultname holds the names of the faults that zksim run (package
// sim) and zksim serve (package internal/netserver) both inject, so that a
// fault has one name everywhere, and the old spellings each still
// accepts. It is a leaf: serve takes the names from here without linking
// the simulator. simhook.FaultKinds is the full table of run's faults.
package faultname

// The shared fault names. They are trace text and flag values: they never
// change.
const (
	LoseRequest = "lose-request" // lost before the server sees it
	LoseReply   = "lose-reply"   // applied, its reply lost
	Disconnect  = "disconnect"   // the client's link is cut; the session lives on
	Crash       = "crash"
	Pause       = "pause"
	Reap        = "reap"
	Reorder     = "reorder"
	Abandon     = "abandon" // the client gives its session up for a new one
)

// Aliases are the old spellings of the fault called name, still accepted
// where a user types a fault (never written): zksim serve said drop-*
// before run and serve agreed on lose-*.
func Aliases(name string) []string {
	switch name {
	case LoseRequest:
		return []string{"drop-request"}
	case LoseReply:
		return []string{"drop-reply"}
	}
	return nil
}
