// Package sessionlog keeps a connection's last session snapshots, so that
// a WaitSession caller stepping through them sees every transition
// (Disconnected, Expired for the old session, Connected for the new one)
// even when several happen at once. The in-process fake's Conn and the
// go-zookeeper adapter keep their snapshots in one.
package sessionlog

import "github.com/zksim/zksim/zkapi"

// Len is how many snapshots a Log remembers for a caller that fell behind.
const Len = 64

// Log holds the last snapshots. Invariant: their Seqs are consecutive and
// the last is the current snapshot. It has no lock of its own: its owner
// guards it.
type Log struct {
	snaps []zkapi.Session
}

// Latest is the current snapshot (the zero Session before the first).
func (l *Log) Latest() zkapi.Session {
	if len(l.snaps) == 0 {
		return zkapi.Session{}
	}
	return l.snaps[len(l.snaps)-1]
}

// Push records s, numbered after the current snapshot, forgetting the
// oldest beyond Len.
func (l *Log) Push(s zkapi.Session) {
	s.Seq = l.Latest().Seq + 1
	if len(l.snaps) == Len {
		l.snaps = append(l.snaps[:0], l.snaps[1:]...)
	}
	l.snaps = append(l.snaps, s)
}

// After returns the snapshot numbered seq+1, or the oldest remembered if
// that one is forgotten, and true; or the current one and false if none
// is newer than seq.
func (l *Log) After(seq uint64) (zkapi.Session, bool) {
	cur := l.Latest()
	if cur.Seq <= seq {
		return cur, false
	}
	first := l.snaps[0].Seq
	if seq+1 <= first {
		return l.snaps[0], true
	}
	return l.snaps[seq+1-first], true
}

// New returns a Log whose current snapshot is first, numbered as it is.
func New(first zkapi.Session) Log { return Log{snaps: []zkapi.Session{first}} }
