package netserver

import (
	"errors"
	"fmt"

	"github.com/zksim/zksim/internal/proto"
)

// Watch caps. A watch is one (session, path, table) triple, as the
// Machine counts them: exists and getData set one in the data table,
// getChildren one in the child table, addWatch one in each; setting a
// watch the session already holds adds nothing. Each costs about 210
// bytes in the Machine and 250 through the server (BENCHMARKS.md).
//
// The defaults never bite a client's own test suite: go-zookeeper's
// largest (TestSetWatchers) holds 1,000 watches in one session, kazoo's
// and Curator's hold far fewer, and a recipe client watching a whole tree
// of 50,000 nodes (TreeCache) holds 100,000. They bound a runaway or
// hostile client on a shared machine to about 25 MiB of watches, and the
// server to about 500 MiB, twice the million watches serve is measured
// with.
const (
	// DefaultMaxSessionWatches is Config.MaxSessionWatches's default.
	DefaultMaxSessionWatches = 100_000
	// DefaultMaxWatches is Config.MaxWatches's default.
	DefaultMaxWatches = 2_000_000
)

// errWatchLimit closes a connection whose request would set a watch past
// a cap.
var errWatchLimit = errors.New("netserver: watch limit reached")

// watchLimits are Config.MaxSessionWatches and Config.MaxWatches, checked
// (0: no limit), with the requests refused for each, under Server.mu.
type watchLimits struct {
	session, total               int
	refusedSession, refusedTotal int
}

// newWatchLimits resolves the caps of cfg: 0 takes the default, a
// negative cap is none.
func newWatchLimits(cfg Config) watchLimits {
	limit := func(n, def int) int {
		switch {
		case n < 0:
			return 0
		case n == 0:
			return def
		}
		return n
	}
	return watchLimits{
		session: limit(cfg.MaxSessionWatches, DefaultMaxSessionWatches),
		total:   limit(cfg.MaxWatches, DefaultMaxWatches),
	}
}

// check returns errWatchLimit, counted as a refusal, if a session holding
// held watches, of total held by all, may not add n more.
func (l *watchLimits) check(held, total, n int) error {
	switch {
	case l.session > 0 && held+n > l.session:
		l.refusedSession++
		return fmt.Errorf("%w: it would hold %d watches, over the per-session cap of %d (Config.MaxSessionWatches, zksim serve -max-session-watches)",
			errWatchLimit, held+n, l.session)
	case l.total > 0 && total+n > l.total:
		l.refusedTotal++
		return fmt.Errorf("%w: the server would hold %d watches, over its cap of %d (Config.MaxWatches, zksim serve -max-watches)",
			errWatchLimit, total+n, l.total)
	}
	return nil
}

// admitWatches reports whether c's request req may set the watches it
// asks for. One that would take its session or the server past a cap
// closes the connection without a reply, as a frame over jute.maxbuffer
// does: the client sees the connection lost and its session lives on,
// holding the watches it had. The real server has no cap to copy; this is
// the refusal every client already handles, and it is loud where a read
// that silently left no watch would break a recipe waiting on it.
//
// A reconnecting client's setWatches is held to the caps too (else it
// would set any number of watches): at the per-session cap it never
// asks for more than it held, but on a server at its total cap it is
// refused, and the client reconnects until watches elsewhere go.
func (s *Server) admitWatches(c *conn, req proto.Request) bool {
	n := s.m.WatchesAdded(c.session, req)
	if n == 0 {
		return true
	}
	err := s.watchLimits.check(s.m.SessionWatchCount(c.session), s.m.HeldWatches(), n)
	if err == nil {
		return true
	}
	s.warnf("%s: session %#x: closing the connection, the session lives on: %v", c.nc.RemoteAddr(), c.session, err)
	s.drop(c)
	return false
}
