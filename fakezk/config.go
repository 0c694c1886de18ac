package fakezk

import "github.com/zksim/zksim/internal/machine"

// Config configures the Machine behind a Server; see machine.Config. A
// Server fills in the defaults below where the Machine has none.
type Config = machine.Config

// DefaultContainerCheckMillis is how often a Server reaps empty
// containers when Config.ContainerCheckTicks is 0: ZooKeeper's default
// znode.container.checkIntervalMs.
const DefaultContainerCheckMillis = 60000

// DefaultEpochMillis is the time a Server's virtual clock starts at when
// Config.EpochMillis is 0: 2022-03-07 00:00 UTC, ZooKeeper 3.8.0's
// release date.
const DefaultEpochMillis int64 = 1_646_611_200_000

// forServer fills in the defaults a Server has and a Machine has not: a
// container reaper every DefaultContainerCheckMillis of virtual time (at
// least once a tick, at most that long apart) and node times from
// DefaultEpochMillis.
func forServer(c Config) Config {
	if c.EpochMillis == 0 {
		c.EpochMillis = DefaultEpochMillis
	}
	if c.ContainerCheckTicks == 0 {
		tick := c.TickMillis
		if tick <= 0 { // 0 is the default; machine.NewMachine rejects a negative one
			tick = defaultTickMillis
		}
		c.ContainerCheckTicks = int(max(1, DefaultContainerCheckMillis/tick))
	}
	return c
}

// defaultTickMillis is ZooKeeper's default tickTime, which the Machine also
// assumes for a zero Config.TickMillis.
const defaultTickMillis = 2000
