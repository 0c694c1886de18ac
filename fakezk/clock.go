package fakezk

import (
	"time"

	"github.com/zksim/zksim/internal/machine"
)

// hostClock is what a Server stamps nodes' ctime and mtime with when
// Config.EpochMillis is 0: the host's clock, as a real server's leader
// stamps a change, plus the virtual time m's Ticks added, so that a test
// that ticks sees its nodes age by the ticks too. It is the package's
// one reading of the host's clock (TestPackage_IsPure allows it here
// only); it decides nothing but those stamps: TTL nodes age by Ticks
// alone.
func hostClock(m *machine.Machine) func() int64 {
	start := time.Now()
	return func() int64 { return start.UnixMilli() + time.Since(start).Milliseconds() + m.Now() }
}
