package proto

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zksim/zksim/zkapi"
)

// MaxTTLMillis is the longest TTL, in ms, a ZooKeeper 3.8 server
// accepts: a TTL node's ephemeralOwner field keeps its TTL in its low 40
// bits (EphemeralType.TTL.maxValue), about 34.8 years.
const MaxTTLMillis int64 = 1<<40 - 1

// IsEphemeral reports whether nodes of mode m belong to a session.
func IsEphemeral(m zkapi.CreateMode) bool {
	return m == zkapi.Ephemeral || m == zkapi.EphemeralSequential
}

// IsSequential reports whether the server appends a sequence number.
func IsSequential(m zkapi.CreateMode) bool {
	return m == zkapi.PersistentSequential || m == zkapi.EphemeralSequential || m == zkapi.PersistentSequentialWithTTL
}

// IsTTL reports whether nodes of mode m take a TTL.
func IsTTL(m zkapi.CreateMode) bool {
	return m == zkapi.PersistentWithTTL || m == zkapi.PersistentSequentialWithTTL
}

// ValidMode reports whether m is one of the modes zkapi names.
func ValidMode(m zkapi.CreateMode) bool {
	return m >= zkapi.Persistent && m <= zkapi.PersistentSequentialWithTTL
}

// ParseCreateMode is the inverse of zkapi.CreateMode.String, for the
// scripts of the conformance runner and the Machine's interaction tests.
func ParseCreateMode(s string) (zkapi.CreateMode, error) {
	for m := zkapi.Persistent; ValidMode(m); m++ {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("zkapi: unknown create mode %q", s)
}

// OpPath returns the path a Multi op acts on.
func OpPath(op zkapi.Op) string {
	switch o := op.(type) {
	case zkapi.CreateOp:
		return o.Path
	case zkapi.DeleteOp:
		return o.Path
	case zkapi.SetOp:
		return o.Path
	case zkapi.CheckOp:
		return o.Path
	}
	return ""
}

// permBits are zkCli's permission letters, as zkapi.ACL.String writes them.
var permBits = map[byte]int32{
	'c': zkapi.PermCreate, 'd': zkapi.PermDelete, 'r': zkapi.PermRead, 'w': zkapi.PermWrite, 'a': zkapi.PermAdmin,
}

// ParseACL parses a comma-separated list of scheme:id:perms entries, the
// form zkapi.ACL.String writes: the scheme ends at the first colon, the
// perms start after the last one (letters from "cdrwa", or a decimal
// number), and the id is what lies between, colons included
// ("digest:u:hash:r"). "open" is zkapi.OpenACL; an empty string is an
// empty (non-nil) list.
func ParseACL(s string) ([]zkapi.ACL, error) {
	if s == "open" {
		return append([]zkapi.ACL(nil), zkapi.OpenACL...), nil
	}
	out := []zkapi.ACL{}
	if s == "" {
		return out, nil
	}
	for _, e := range strings.Split(s, ",") {
		scheme, rest, ok1 := strings.Cut(e, ":")
		i := strings.LastIndexByte(rest, ':')
		if !ok1 || i < 0 {
			return nil, fmt.Errorf("%w: ACL entry %q is not scheme:id:perms", zkapi.ErrBadArguments, e)
		}
		perms, err := parsePerms(rest[i+1:])
		if err != nil {
			return nil, fmt.Errorf("%w: ACL entry %q: %v", zkapi.ErrBadArguments, e, err)
		}
		out = append(out, zkapi.ACL{Perms: perms, Scheme: scheme, ID: rest[:i]})
	}
	return out, nil
}

func parsePerms(s string) (int32, error) {
	if n, err := strconv.ParseInt(s, 10, 32); err == nil {
		return int32(n), nil
	}
	var p int32
	for i := range len(s) {
		bit, ok := permBits[s[i]]
		if !ok {
			return 0, fmt.Errorf("unknown permission %q", s[i])
		}
		p |= bit
	}
	return p, nil
}
