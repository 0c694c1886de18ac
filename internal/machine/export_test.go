package machine

// WatchPeaks returns the peaks of replica i's data and child watch tables
// and of its modes since each was last rebuilt, and of session id's watch
// set, with the number of spare watcher lists the Machine keeps.
func WatchPeaks(m *Machine, i int, id int64) (data, child, modes, session, spare int) {
	r := m.replicas[i]
	if s := m.sessions[id]; s != nil {
		session = s.watches.top
	}
	return r.peaks.table[watchData], r.peaks.table[watchChild], r.peaks.modes, session, len(m.spare)
}

// Detached returns the count of detached sessions the Machine keeps for
// Due, and the count of them among its sessions.
func Detached(m *Machine) (kept, counted int) {
	for _, s := range m.sessions {
		if !s.attached {
			counted++
		}
	}
	return m.detached, counted
}
