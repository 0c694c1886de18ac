package fakezk

import "github.com/zksim/zksim/zkapi"

// sessionLogLen is how many snapshots a Conn remembers for a WaitSession
// caller that fell behind, as many as zkapi/gozk's Conn does.
const sessionLogLen = 64

// sessionLog holds a Conn's last session snapshots, so that WaitSession
// steps through every transition rather than jumping to the latest: the
// in-process Conn makes several at once (Expired, then the new session's
// Connected), where a real client spreads them out. Invariant: snaps is
// not empty once Connect returns, its Seqs are consecutive, and its last
// element is the current snapshot. Guarded by the Server's mutex.
type sessionLog struct {
	snaps []zkapi.Session
}

// latest is the current snapshot (the zero Session before the first).
func (l *sessionLog) latest() zkapi.Session {
	if len(l.snaps) == 0 {
		return zkapi.Session{}
	}
	return l.snaps[len(l.snaps)-1]
}

// push records the next snapshot, forgetting the oldest beyond
// sessionLogLen.
func (l *sessionLog) push(id int64, st zkapi.State) {
	s := zkapi.Session{ID: id, State: st, Seq: l.latest().Seq + 1}
	if len(l.snaps) == sessionLogLen {
		l.snaps = append(l.snaps[:0], l.snaps[1:]...)
	}
	l.snaps = append(l.snaps, s)
}

// after returns the snapshot numbered seq+1, or the oldest remembered if
// that one is forgotten, and true; or the current one and false if none
// is newer than seq.
func (l *sessionLog) after(seq uint64) (zkapi.Session, bool) {
	cur := l.latest()
	if cur.Seq <= seq {
		return cur, false
	}
	first := l.snaps[0].Seq
	if seq+1 <= first {
		return l.snaps[0], true
	}
	return l.snaps[seq+1-first], true
}
