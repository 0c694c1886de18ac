package machine

import (
	"fmt"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// TTL nodes (Config.ExtendedTypes), as ZooKeeper 3.8's EphemeralType
// keeps them: the node's ephemeralOwner holds the extended-type marker in
// its top byte (0xFF), the TTL type (0) in the next two, and the TTL in
// milliseconds in the low 40 bits. Clients see 0, as for containers
// (DataNode.copyStat shows only a session's id). The container reaper
// deletes a TTL node that has no children and whose mtime is more than
// its TTL old (ContainerManager.getCandidates).
//
// Virtual time moves in whole ticks, and a node's mtime is the time of
// the tick before the change: the change really happened up to a tick
// later. So that a node never goes before its TTL has passed (a real
// server is only ever late, by up to its check interval, never early),
// the reaper counts a node's age from the end of the tick it changed in.

// extendedMask marks an ephemeralOwner holding an extended type.
const extendedMask = -0x100000000000000 // 0xFF00000000000000

// ttlOwner is the ephemeralOwner of a TTL node (EphemeralType.TTL
// .toEphemeralOwner).
func ttlOwner(ttlMillis int64) int64 { return extendedMask | ttlMillis }

// isTTLOwner reports whether owner marks a TTL node. Session ids never
// have the top byte set (ZooKeeper: EphemeralType.validateServerId; the
// fake's start at firstSessionID), nor has containerOwner.
func isTTLOwner(owner int64) bool { return owner&extendedMask == extendedMask }

// ttlOf is the TTL, in ms, that a TTL node's owner holds.
func ttlOf(owner int64) int64 { return owner &^ (extendedMask | 0x00FFFF0000000000) }

// createModeError is the error the Machine answers a create with for its
// mode and TTL alone, which ZooKeeper checks before anything else
// (PrepRequestProcessor.validateCreateRequest), or nil. A server that
// checks more than the Machine (internal/netserver: ACLs) asks it first, to
// keep ZooKeeper's order.
//
//go:noinline
func (m *Machine) createModeError(r proto.Create) error {
	if !proto.ValidMode(r.Mode) {
		return fmt.Errorf("%w: unknown create mode %d", zkapi.ErrBadArguments, r.Mode)
	}
	return m.checkTTL(r)
}

// plainMode reports whether r's mode is a known one without a TTL, and r
// has no TTL: createModeError has nothing to say about nearly every
// create, and it is only called for the others.
func plainMode(r proto.Create) bool {
	return r.TTLMillis == 0 && proto.ValidMode(r.Mode) && !proto.IsTTL(r.Mode)
}

// checkTTL is PrepRequestProcessor.validateCreateRequest's check of a
// create's mode and TTL, which comes before any check of the path: a TTL
// mode needs extended types (Unimplemented), and EphemeralType.validateTTL
// wants a TTL mode's TTL in (0, MaxTTL] and no TTL with another mode.
func (m *Machine) checkTTL(r proto.Create) error {
	switch {
	case proto.IsTTL(r.Mode) && !m.cfg.ExtendedTypes:
		return fmt.Errorf("%w: TTL nodes need extended types (zookeeper.extendedTypesEnabled)", zkapi.ErrUnimplemented)
	case proto.IsTTL(r.Mode) && (r.TTLMillis <= 0 || r.TTLMillis > proto.MaxTTLMillis):
		return fmt.Errorf("%w: ttl %d ms is not in [1, %d]", zkapi.ErrBadArguments, r.TTLMillis, proto.MaxTTLMillis)
	case !proto.IsTTL(r.Mode) && r.TTLMillis != 0:
		return fmt.Errorf("%w: ttl %d ms with mode %s", zkapi.ErrBadArguments, r.TTLMillis, r.Mode)
	}
	return nil
}

// ttlExpired reports whether the reaper deletes n now: a TTL node without
// children that has surely been unchanged for more than its TTL, its
// change having happened, at the latest, at the end of its mtime's tick.
func (m *Machine) ttlExpired(n *znode) bool {
	return isTTLOwner(n.stat.EphemeralOwner) && len(n.children) == 0 &&
		m.ttlAge(n) >= ttlOf(n.stat.EphemeralOwner)
}

// ttlAge is how long n has surely been unchanged: its age in virtual
// time, less the tick its change may have come at the end of. Virtual
// time, not the clock that stamps mtime (Machine.UseClock): a unit test
// reaps a TTL node at the same Tick in every run.
func (m *Machine) ttlAge(n *znode) int64 {
	return m.now - n.vmtime - m.cfg.TickMillis
}

// noteReaper adds path to, or removes it from, the leader's container
// and TTL nodes (Machine.reapers) if owner is a container's or a TTL
// node's.
func (m *Machine) noteReaper(path string, owner int64, on bool) {
	switch {
	case owner != containerOwner && !isTTLOwner(owner):
	case on:
		m.reapers[path] = struct{}{}
	default:
		delete(m.reapers, path)
	}
}

// reapable reports whether the container reaper deletes n now: an empty
// container that has had children, or an expired TTL node.
func (m *Machine) reapable(n *znode) bool {
	return n.stat.EphemeralOwner == containerOwner && len(n.children) == 0 && n.cversion > 0 || m.ttlExpired(n)
}

// reapableLater reports whether n is a TTL node that the reaper will
// delete once enough virtual time has passed, if nothing changes it.
func reapableLater(n *znode) bool {
	return isTTLOwner(n.stat.EphemeralOwner) && len(n.children) == 0
}

// reapDue is the number of ticks until a reaper that runs every k ticks
// deletes n, which is reapable now or later: the next run for a
// container; for a TTL node the first run at which its mtime is more than
// its TTL old.
func (m *Machine) reapDue(n *znode, k int64) int64 {
	j := k - m.ticks%k
	if !isTTLOwner(n.stat.EphemeralOwner) {
		return j
	}
	tick := m.cfg.TickMillis
	// The run j ticks from now sees ttlAge + j*tick, which must reach the
	// TTL.
	need := ttlOf(n.stat.EphemeralOwner) - m.ttlAge(n)
	if j*tick >= need {
		return j
	}
	return j + ((need-j*tick-1)/(k*tick)+1)*k
}
