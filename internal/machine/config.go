package machine

import (
	"errors"
	"fmt"
)

// Overflow selects what a parent's sequence counter does after 2^31-1.
type Overflow int

const (
	// OverflowPin is ZooKeeper 3.6.0+ (ZOOKEEPER-3249): the wrapped counter
	// is never stored, so every later sequential create gets 2147483647.
	OverflowPin Overflow = iota
	// OverflowWrap is the documented behaviour (servers up to 3.5.x): the
	// counter wraps to -2147483648 and keeps counting.
	OverflowWrap
)

func (o Overflow) String() string {
	if o == OverflowWrap {
		return "wrap"
	}
	return "pin"
}

// Config configures a Machine. It is fakezk.Config field for field (that
// type documents each; a test in internal/fakeconfig keeps the two
// alike), but for Overflow, this package's own type. The zero value is
// ZooKeeper's defaults with seed 0; unlike a fakezk.Server, a Machine
// keeps ContainerCheckTicks 0 as "reap only on ReapContainers" and
// EpochMillis 0 as "virtual time from 0".
type Config struct {
	Seed                uint64
	TickMillis          int64 // default DefaultTickMillis
	Overflow            Overflow
	MaxFrame            int // default DefaultMaxFrame; applied by the transports, never seen here
	ContainerCheckTicks int // negative or 0: never by itself
	Followers           int // see Machine.CatchUp
	SortChildren        bool
	EpochMillis         int64
	ExtendedTypes       bool
	EmulateTTL353       bool
	SuperDigest         string // see zkapi.DigestID
}

var errConfig = errors.New("fakezk: invalid config")

// DefaultTickMillis is ZooKeeper's default tickTime.
const DefaultTickMillis = 2000

// DefaultContainerCheckMillis is how often a fakezk Server reaps empty
// containers when Config.ContainerCheckTicks is 0: ZooKeeper's default
// znode.container.checkIntervalMs.
const DefaultContainerCheckMillis = 60000

// DefaultEpochMillis is the time a fakezk Server's virtual clock starts
// at when Config.EpochMillis is 0: 2022-03-07 00:00 UTC, ZooKeeper
// 3.8.0's release date.
const DefaultEpochMillis int64 = 1_646_611_200_000

// DefaultMaxFrame is jute.maxbuffer's default: the server closes a
// connection whose request frame (without its 4-byte length) is longer.
const DefaultMaxFrame = 1<<20 - 1

func (c Config) withDefaults() (Config, error) {
	if c.TickMillis == 0 {
		c.TickMillis = DefaultTickMillis
	}
	if c.MaxFrame == 0 {
		c.MaxFrame = DefaultMaxFrame
	}
	switch {
	case c.TickMillis < 0:
		return c, fmt.Errorf("%w: TickMillis %d is negative", errConfig, c.TickMillis)
	case c.MaxFrame < 0:
		return c, fmt.Errorf("%w: MaxFrame %d is negative", errConfig, c.MaxFrame)
	case c.EpochMillis < 0:
		return c, fmt.Errorf("%w: EpochMillis %d is negative", errConfig, c.EpochMillis)
	case c.Followers < 0:
		return c, fmt.Errorf("%w: Followers %d is negative", errConfig, c.Followers)
	case c.Overflow != OverflowPin && c.Overflow != OverflowWrap:
		return c, fmt.Errorf("%w: unknown Overflow %d", errConfig, c.Overflow)
	}
	return c, nil
}

// rng is splitmix64: small, fast, and owned by the Machine so that no
// global random source can reach a reply. Only a Config.Seed other than
// 0 draws from it (fakezk.Config.Seed documents that).
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// shuffle permutes names in place (Fisher-Yates).
func (r *rng) shuffle(names []string) {
	for i := len(names) - 1; i > 0; i-- {
		j := int(r.next() % uint64(i+1))
		names[i], names[j] = names[j], names[i]
	}
}
