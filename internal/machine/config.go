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

// Config configures a Machine. The zero value is ZooKeeper's defaults with
// seed 0.
type Config struct {
	// Seed drives every choice the server makes freely: today the order of
	// getChildren replies.
	Seed uint64
	// TickMillis is the virtual tickTime; session timeouts are clamped to
	// [2, 20] ticks. Default 2000, ZooKeeper's default.
	TickMillis int64
	// Overflow picks the sequence counter's behaviour past 2^31-1.
	Overflow Overflow
	// MaxFrame is jute.maxbuffer: a longer request frame closes the
	// connection. Default DefaultMaxFrame. The Machine never sees a
	// frame: the transports that send it requests (the wire server, the
	// in-process and simulated clients) apply the limit.
	MaxFrame int
	// ContainerCheckTicks reaps empty containers (and, with
	// ExtendedTypes, expired TTL nodes) every so many ticks, as
	// ZooKeeper's ContainerManager does. A negative value never reaps by
	// itself (only on ReapContainers); so does 0 on a Machine, which the
	// simulator drives and reaps as a fault of its own. A Server reads 0 as
	// every 60 s of virtual time (DefaultContainerCheckMillis, ZooKeeper's
	// znode.container.checkIntervalMs default), so plain tests see
	// containers reaped as on a real server; set -1 to turn that off.
	ContainerCheckTicks int
	// Followers is the number of follower replicas beside the leader (0: a
	// standalone server). Sessions on a follower may read stale state until
	// it catches up (see Machine.CatchUp).
	Followers int
	// SortChildren returns children sorted instead of shuffled, for tests
	// that want to read replies as literals.
	SortChildren bool
	// EpochMillis is the wall-clock time, in ms since 1970, that virtual
	// time 0 stands for: nodes' ctime and mtime are EpochMillis plus the
	// virtual time, as a real server stamps them from its clock. It never
	// comes from the host's clock, so runs repeat. A Machine keeps 0
	// (the simulator's traces print virtual ms); a Server reads 0 as
	// DefaultEpochMillis.
	EpochMillis int64
	// ExtendedTypes is ZooKeeper's zookeeper.extendedTypesEnabled: TTL
	// nodes (zkapi.PersistentWithTTL, zkapi.PersistentSequentialWithTTL,
	// createTTL) are allowed, and the container reaper also deletes a TTL
	// node without children whose mtime is more than its TTL old. Off, as
	// on a default 3.8 server, a TTL create answers ErrUnimplemented.
	ExtendedTypes bool
	// EmulateTTL353 is zookeeper.emulate353TTLNodes, which makes a server
	// with extended types also read TTL nodes that 3.5.3 wrote (any
	// negative ephemeralOwner but a container's). The fake's tree starts
	// empty and its session ids are positive, so, as on a fresh 3.8.0
	// server (measured: the same answers with and without it), it changes
	// nothing the fake answers; it is accepted so that configurations
	// that set it (go-zookeeper's test servers) can be given as they are.
	EmulateTTL353 bool
	// SuperDigest is ZooKeeper's
	// zookeeper.DigestAuthenticationProvider.superDigest, "user:" and the
	// base64 SHA-1 of "user:password" (zkapi.DigestID): a connection that
	// adds that digest identity passes every ACL check. Empty: no super
	// user.
	SuperDigest string
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
// global random source can reach a reply.
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
