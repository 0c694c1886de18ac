package netserver_test

import (
	"testing"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/internal/zktest"
)

// The raw cases of a server with TTL nodes on (extendedTypesEnabled),
// compared with ZooKeeper 3.8.0 started with
// -Dzookeeper.extendedTypesEnabled=true (zktest.EnvExtended). The checks
// come from PrepRequestProcessor.validateCreateRequest and
// EphemeralType.validateTTL (a TTL in [1, 2^40-1] ms, checked before the
// path, the parent and the ACL), what clients see of a TTL node from
// DataNode.copyStat (ephemeralOwner 0), and a multi's TTL create from
// MultiOperationRecord and FinalRequestProcessor. Known gaps: those of
// rawcases_test.go that concern creates.

// ttlGoldenFile holds the real server's observation of every TTL case.
const ttlGoldenFile = "testdata/rawttl.golden"

// maxTTL is EphemeralType.TTL.maxValue(), in ms.
const maxTTL = 1<<40 - 1

// ttlServerConfig is serverConfig with extended types on.
func ttlServerConfig() netserver.Config {
	return netserver.Config{Machine: machine.Config{TickMillis: 500, SortChildren: true, ExtendedTypes: true}}
}

// TestRawDiffTTL_RealVsFake is TestRawDiff_RealVsFake for ttlCases on a
// real server with extended types.
func TestRawDiffTTL_RealVsFake(t *testing.T) {
	rawDiff(t, zktest.Extended(t), ttlServerConfig(), ttlCases(), ttlGoldenFile)
}

// TestRawTTL_FakeMatchesRecorded is TestRaw_FakeMatchesRecorded for
// ttlCases.
func TestRawTTL_FakeMatchesRecorded(t *testing.T) {
	rawRecorded(t, ttlServerConfig(), ttlCases(), ttlGoldenFile)
}

func createTTLReq(xid int32, path string, flags int32, ttl int64) []byte {
	return req(xid, wire.OpCreateTTL, jb{}.create(path, "d", flags).i64(ttl))
}

func ttlCases() []rawCase {
	return slicesConcat(ttlCreates(), ttlMulti())
}

// ttlCreates: createTTL and the other creates with TTL modes.
func ttlCreates() []rawCase {
	one := func(name string, flags int32, ttl int64) rawCase {
		return rawCase{name: name, send: sends(func(r string) []byte {
			return cat(createTTLReq(1, r+"/t", flags, ttl), exists(2, r+"/t", false))
		})}
	}
	return []rawCase{
		one("createTTL", 5, 1000),
		one("createTTL sequential", 6, 1000),
		one("createTTL ttl 1", 5, 1),
		one("createTTL ttl 0", 5, 0),
		one("createTTL ttl -1", 5, -1),
		one("createTTL largest ttl", 5, maxTTL),
		one("createTTL ttl above the largest", 6, maxTTL+1),
		one("createTTL with a plain mode", 0, 1000),
		one("createTTL with an ephemeral mode", 1, 1000),
		one("createTTL with a container mode", 4, 1000),
		one("createTTL with an unknown mode", 9, 1000),
		{name: "create, create2 and createContainer with a TTL mode", send: sends(func(r string) []byte {
			return cat(create(1, r+"/t", "", 5), req(2, wire.OpCreate2, jb{}.create(r+"/t", "", 6)),
				req(3, wire.OpCreateContainer, jb{}.create(r+"/t", "", 5)), exists(4, r+"/t", false))
		})},
		{name: "createTTL checks the ttl before the parent", send: sends(func(r string) []byte {
			return cat(createTTLReq(1, r+"/none/t", 5, 0), createTTLReq(2, r+"/none/t", 5, 1000))
		})},
		{name: "createTTL checks the ttl before the path", send: sends(func(r string) []byte {
			return cat(createTTLReq(1, "bad", 5, 0), createTTLReq(2, "bad", 5, 1000), createTTLReq(3, r+"/t/", 5, 1000))
		})},
		{name: "createTTL checks the ttl before the ACL", send: sends(func(r string) []byte {
			noACL := func(xid int32, ttl int64) []byte {
				return req(xid, wire.OpCreateTTL, jb{}.str(r+"/t").str("").i32(0).i32(5).i64(ttl))
			}
			return cat(noACL(1, 0), noACL(2, 1000))
		})},
		{name: "createTTL of an existing node", send: sends(func(r string) []byte {
			return cat(createTTLReq(1, r+"/t", 5, 1000), createTTLReq(2, r+"/t", 5, 1000))
		})},
		{name: "children of a TTL node", send: sends(func(r string) []byte {
			return cat(createTTLReq(1, r+"/t", 5, 1000), create(2, r+"/t/p", "", 0), create(3, r+"/t/e", "", 1),
				createTTLReq(4, r+"/t/s-", 6, 1000), req(5, wire.OpGetChildren2, jb{}.str(r+"/t").bool(false)),
				getData(6, r+"/t", false))
		})},
		{name: "setData and getEphemerals on a TTL node", send: sends(func(r string) []byte {
			return cat(createTTLReq(1, r+"/t", 5, 1000), setData(2, r+"/t", "x", 0),
				req(3, wire.OpGetEphemerals, jb{}.str(r)), req(4, wire.OpDelete, jb{}.str(r+"/t").i32(1)))
		})},
	}
}

// ttlMulti: TTL creates inside a multi.
func ttlMulti() []rawCase {
	mop := func(typ wire.Op, body jb) jb { return append(jb{}.mh(typ, false, -1), body...) }
	mttl := func(path string, flags int32, ttl int64) jb {
		return mop(wire.OpCreateTTL, jb{}.create(path, "d", flags).i64(ttl))
	}
	multi := func(parts ...jb) []byte {
		var body jb
		for _, p := range parts {
			body = append(body, p...)
		}
		return req(1, wire.OpMulti, body.mend())
	}
	return []rawCase{
		{name: "multi with TTL creates", send: sends(func(r string) []byte {
			return cat(multi(mop(wire.OpCreate, jb{}.create(r+"/p", "", 0)), mttl(r+"/t", 5, 1000), mttl(r+"/s-", 6, 1000)),
				getData(2, r+"/t", false))
		})},
		{name: "multi with a TTL create of ttl 0", send: sends(func(r string) []byte {
			return multi(mop(wire.OpCreate, jb{}.create(r+"/p", "", 0)), mttl(r+"/t", 5, 0), mttl(r+"/u", 5, 1000))
		})},
		{name: "multi with a TTL create of ttl 0 after a failure", send: sends(func(r string) []byte {
			return multi(mop(wire.OpDelete, jb{}.str(r+"/none").i32(-1)), mttl(r+"/t", 5, 0))
		})},
		{name: "multi with a TTL create and an empty ACL", send: sends(func(r string) []byte {
			return multi(mop(wire.OpCreateTTL, jb{}.str(r+"/t").str("").i32(0).i32(5).i64(0)),
				mop(wire.OpCreateTTL, jb{}.str(r+"/u").str("").i32(0).i32(5).i64(1000)))
		})},
		{name: "multi with a TTL mode under a create header, extended", send: sends(func(r string) []byte {
			return multi(mop(wire.OpCreate, jb{}.create(r+"/t", "", 5)))
		})},
		{name: "multi with createTTL and a plain mode, extended", send: sends(func(r string) []byte {
			return cat(multi(mttl(r+"/t", 0, 1000)), getData(2, r+"/t", false))
		})},
	}
}
