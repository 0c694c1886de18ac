package zkapi

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
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
// none at all: the form zkCli's setAcl reads.
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
