package zkapi

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// Permission bits of an ACL entry (ZooDefs.Perms).
const (
	PermRead   int32 = 1 << 0
	PermWrite  int32 = 1 << 1
	PermCreate int32 = 1 << 2
	PermDelete int32 = 1 << 3
	PermAdmin  int32 = 1 << 4
	PermAll    int32 = PermRead | PermWrite | PermCreate | PermDelete | PermAdmin
)

// ACL is one entry of a node's access control list: the permissions it
// grants to the identity Scheme:ID (ZooKeeper's ACL and Id).
type ACL struct {
	Perms  int32
	Scheme string
	ID     string
}

// OpenACL is world:anyone with every permission (ZooDefs.Ids
// OPEN_ACL_UNSAFE): the ACL of every node Conn.Create makes. Do not
// modify it.
var OpenACL = []ACL{{Perms: PermAll, Scheme: "world", ID: "anyone"}}

// permLetters are the permission letters in zkCli's order, "cdrwa".
var permLetters = [...]struct {
	c byte
	p int32
}{{'c', PermCreate}, {'d', PermDelete}, {'r', PermRead}, {'w', PermWrite}, {'a', PermAdmin}}

// String renders the entry as scheme:id:perms, the perms as zkCli's
// letters ("cdrwa"), or as a number when it has bits outside PermAll or
// none at all.
func (a ACL) String() string {
	return a.Scheme + ":" + a.ID + ":" + permString(a.Perms)
}

// permString renders permission bits as zkCli's letters, or as a decimal
// number when they are 0 or hold bits outside PermAll.
func permString(p int32) string {
	if p == 0 || p&^PermAll != 0 {
		return strconv.Itoa(int(p))
	}
	var b []byte
	for _, l := range permLetters {
		if p&l.p != 0 {
			b = append(b, l.c)
		}
	}
	return string(b)
}

// ParseACL parses a comma-separated list of scheme:id:perms entries, the
// form ACL.String writes: the scheme ends at the first colon, the perms
// start after the last one (letters from "cdrwa", or a decimal number),
// and the id is what lies between, colons included ("digest:u:hash:r").
// "open" is OpenACL; an empty string is an empty (non-nil) list.
func ParseACL(s string) ([]ACL, error) {
	if s == "open" {
		return append([]ACL(nil), OpenACL...), nil
	}
	out := []ACL{}
	if s == "" {
		return out, nil
	}
	for _, e := range strings.Split(s, ",") {
		scheme, rest, ok1 := strings.Cut(e, ":")
		i := strings.LastIndexByte(rest, ':')
		if !ok1 || i < 0 {
			return nil, fmt.Errorf("%w: ACL entry %q is not scheme:id:perms", ErrBadArguments, e)
		}
		perms, err := parsePerms(rest[i+1:])
		if err != nil {
			return nil, fmt.Errorf("%w: ACL entry %q: %v", ErrBadArguments, e, err)
		}
		out = append(out, ACL{Perms: perms, Scheme: scheme, ID: rest[:i]})
	}
	return out, nil
}

func parsePerms(s string) (int32, error) {
	if n, err := strconv.ParseInt(s, 10, 32); err == nil {
		return int32(n), nil
	}
	var p int32
	for i := range len(s) {
		found := false
		for _, l := range permLetters {
			if s[i] == l.c {
				p, found = p|l.p, true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown permission %q", s[i])
		}
	}
	return p, nil
}

// DigestID is the id the digest scheme gives "user:password" (an addauth
// of scheme digest with those bytes): user:base64(sha1(user:password)), as
// DigestAuthenticationProvider.generateDigest computes it. An ACL entry
// digest:DigestID(...) grants its perms to whoever authenticates so.
func DigestID(userPassword string) string {
	user, _, _ := strings.Cut(userPassword, ":")
	sum := sha1.Sum([]byte(userPassword))
	return user + ":" + base64.StdEncoding.EncodeToString(sum[:])
}

// ACLConn is a Conn that also sets and reads ACLs and authenticates its
// connection. It is kept apart from Conn so that recipes which need no
// ACLs, and fakes of Conn, stay small. fakezk's Conn and zkapi/gozk's Conn
// implement it.
type ACLConn interface {
	Conn
	// CreateWithACL is Create with the new node's ACL (nil: OpenACL). An
	// "auth" entry stands for every identity the connection has
	// authenticated (ErrInvalidACL if none).
	CreateWithACL(ctx context.Context, path string, data []byte, mode CreateMode, acl []ACL) (string, error)
	// AddAuth adds an identity to the connection (scheme "digest" with
	// "user:password"). The Conn re-sends it after every reconnect, as
	// the connection's identities do not outlive it. An unknown scheme
	// fails with ErrAuthFailed and the server drops the connection.
	AddAuth(ctx context.Context, scheme string, auth []byte) error
	// GetACL returns a node's ACL and Stat. It needs READ or ADMIN;
	// without ADMIN the digest entries' hashes read "x".
	GetACL(ctx context.Context, path string) ([]ACL, Stat, error)
	// SetACL replaces a node's ACL if its Aversion is version (AnyVersion:
	// any), which needs ADMIN on the node, and returns the new Stat.
	SetACL(ctx context.Context, path string, acl []ACL, version int32) (Stat, error)
}
