package fakezk

import (
	"github.com/zksim/zksim/internal/fakeconfig"
	"github.com/zksim/zksim/internal/machine"
)

// Config configures the ZooKeeper a Server (or the simulator, package
// sim) serves. The zero value is ZooKeeper 3.8's defaults.
type Config struct {
	// Seed, when not 0, lists a node's children in a fresh order at
	// every getChildren, shuffled by a generator it seeds: harsher than
	// a real server, and what zksim did before it listed children as
	// ZooKeeper does. Trace files saved then carry their seed and replay
	// with it. 0, the default: children come in the real server's order,
	// its hash set's, the same at every call and decided by the names
	// and the order they were added in.
	Seed uint64
	// TickMillis is the virtual tickTime; session timeouts are clamped
	// to [2, 20] ticks. Default 2000, ZooKeeper's default.
	TickMillis int64
	// Overflow picks the sequence counter's behaviour past 2^31-1.
	Overflow Overflow
	// MaxFrame is jute.maxbuffer: a longer request frame closes the
	// connection (ErrConnectionLoss). Default 1 MiB - 1, ZooKeeper's.
	MaxFrame int
	// ContainerCheckTicks reaps empty containers (and, with
	// ExtendedTypes, expired TTL nodes) every so many ticks, as
	// ZooKeeper's ContainerManager does. A Server reads 0 as every 60 s
	// of virtual time (ZooKeeper's znode.container.checkIntervalMs
	// default), at least once a tick, so plain tests see containers
	// reaped as on a real server; -1 turns that off. The simulator reads
	// 0 as never: it reaps as a fault of its own.
	ContainerCheckTicks int
	// Followers is the number of follower replicas beside the leader (0:
	// a standalone server). Sessions on a follower may read stale state
	// until it catches up.
	Followers int
	// SortChildren returns children sorted instead of in the server's
	// order, for tests that want to read replies as literals.
	SortChildren bool
	// EpochMillis, when not 0, is the wall-clock time, in ms since
	// 1970, that virtual time 0 stands for: nodes' ctime and mtime are
	// EpochMillis plus the virtual time, which moves only by Tick, so a
	// test reads the same times at every run. 0, the default: a Server
	// stamps nodes by the host's clock, as a real server does, plus the
	// virtual time its Ticks added (a Tick is time passing for the
	// server). Either way TTL nodes age by Ticks alone, so a test reaps
	// one at the same tick every run. The simulator reads 0 as
	// virtual time from 0, its traces printing virtual ms: no host clock
	// reaches a trace.
	EpochMillis int64
	// ExtendedTypes is ZooKeeper's zookeeper.extendedTypesEnabled: TTL
	// nodes (zkapi.PersistentWithTTL, zkapi.PersistentSequentialWithTTL,
	// zkapi.TTLCreator) are allowed, and the container reaper also
	// deletes a TTL node without children whose mtime is more than its
	// TTL old. Off, as on a default 3.8 server, a TTL create answers
	// zkapi.ErrUnimplemented.
	ExtendedTypes bool
	// EmulateTTL353 is zookeeper.emulate353TTLNodes. The fake's tree
	// starts empty and its session ids are positive, so, as on a fresh
	// 3.8.0 server, it changes no answer; it is accepted so that
	// configurations that set it can be given as they are.
	EmulateTTL353 bool
	// SuperDigest is ZooKeeper's
	// zookeeper.DigestAuthenticationProvider.superDigest, "user:" and the
	// base64 SHA-1 of "user:password" (zkapi.DigestID): a connection that
	// adds that digest identity passes every ACL check. Empty: no super
	// user.
	SuperDigest string
}

// Overflow selects what a parent's sequence counter does after 2^31-1.
type Overflow int

const (
	// OverflowPin is ZooKeeper 3.6.0+ (ZOOKEEPER-3249): the wrapped
	// counter is never stored, so every later sequential create gets
	// 2147483647.
	OverflowPin Overflow = iota
	// OverflowWrap is the documented behaviour (servers up to 3.5.x): the
	// counter wraps to -2147483648 and keeps counting.
	OverflowWrap
)

// String is "pin" or "wrap", as trace headers and the CLI's -overflow
// flag spell them.
func (o Overflow) String() string { return machine.Overflow(o).String() }

func init() {
	fakeconfig.Register(func(c any) machine.Config { return c.(Config).machine() })
}

// machine is c as the Machine takes it, field for field.
func (c Config) machine() machine.Config {
	return machine.Config{
		Seed: c.Seed, TickMillis: c.TickMillis, Overflow: machine.Overflow(c.Overflow), MaxFrame: c.MaxFrame,
		ContainerCheckTicks: c.ContainerCheckTicks, Followers: c.Followers, SortChildren: c.SortChildren,
		EpochMillis: c.EpochMillis, ExtendedTypes: c.ExtendedTypes, EmulateTTL353: c.EmulateTTL353,
		SuperDigest: c.SuperDigest,
	}
}

// forServer is c as a Server's Machine takes it, with the defaults a
// Server has and a Machine has not: a container reaper every
// machine.DefaultContainerCheckMillis of virtual time (at least once a
// tick, at most that long apart). Its node times are NewServer's.
func forServer(c Config) machine.Config {
	mc := c.machine()
	if mc.ContainerCheckTicks == 0 {
		tick := mc.TickMillis
		if tick <= 0 { // 0 is the default; machine.NewMachine rejects a negative one
			tick = machine.DefaultTickMillis
		}
		mc.ContainerCheckTicks = int(max(1, machine.DefaultContainerCheckMillis/tick))
	}
	return mc
}
