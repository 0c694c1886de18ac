package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// create is Create, or CreateWithACL when the script gave an ACL.
func create(ctx context.Context, c zkapi.Conn, path string, data []byte, mode zkapi.CreateMode, acl []zkapi.ACL) (string, error) {
	if acl == nil {
		return c.Create(ctx, path, data, mode)
	}
	ac, ok := c.(zkapi.ACLConn)
	if !ok {
		return "", fmt.Errorf("create with an ACL: the target's Conn %T has no ACLs", c)
	}
	return ac.CreateWithACL(ctx, path, data, mode, acl)
}

// parseACL reads an ACL argument (proto.ParseACL's form).
func parseACL(a *args, spec string) []zkapi.ACL {
	acl, err := proto.ParseACL(spec)
	if err != nil {
		a.fail("%v", err)
	}
	return acl
}

// aclCommand runs addauth SCHEME AUTH, getacl PATH and setacl PATH ACL
// [version].
func (r *Runner) aclCommand(ctx context.Context, c zkapi.ACLConn, cmd string, a *args) (string, error) {
	switch cmd {
	case "addauth":
		scheme, auth := a.next("scheme"), a.next("auth")
		if err := a.done(); err != nil {
			return "", err
		}
		before := c.Session()
		err := c.AddAuth(ctx, scheme, []byte(auth))
		if errors.Is(err, zkapi.ErrAuthFailed) {
			if werr := waitRedialled(ctx, c, before.Seq); werr != nil {
				return "", werr
			}
		}
		return r.result(err, nil), nil
	case "getacl":
		path := r.abs(a.next("path"))
		if err := a.done(); err != nil {
			return "", err
		}
		acl, st, err := c.GetACL(ctx, path)
		return r.result(err, func() string { return aclString(acl) + " " + r.stat(st) }), nil
	default:
		path := r.abs(a.next("path"))
		acl := parseACL(a, a.next("acl"))
		v := a.version()
		if err := a.done(); err != nil {
			return "", err
		}
		st, err := c.SetACL(ctx, path, acl, v)
		return r.result(err, func() string { return r.stat(st) }), nil
	}
}

func aclString(acl []zkapi.ACL) string {
	parts := make([]string, len(acl))
	for i, e := range acl {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// waitRedialled waits, after a failed auth, until c has reported its
// connection dropped (the server closes it) and connected again, so the
// next line's answer is the server's.
func waitRedialled(ctx context.Context, c zkapi.Conn, seq uint64) error {
	dropped := false
	for {
		s, err := c.WaitSession(ctx, seq)
		if err != nil {
			return fmt.Errorf("waiting for the reconnect after a failed auth: %w", err)
		}
		dropped = dropped || s.State == zkapi.StateDisconnected
		if dropped && s.State == zkapi.StateConnected {
			return nil
		}
		seq = s.Seq
	}
}
