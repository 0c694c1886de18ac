package gozk

import (
	"context"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// Multi implements zkapi.Conn.
//
// go-zookeeper sends every create in a multi with the create opcode and
// cannot decode a createContainer result, so a CreateOp with Mode Container
// is refused with ErrBadArguments before anything is sent, and so is a TTL
// create, which its Multi cannot send. (The server would
// accept the container flag on a plain create and make a persistent node.)
//
// When an op fails, ZooKeeper 3.8 answers with a result per op (earlier ones
// OK, the failing one its code, later ones RuntimeInconsistency) and Multi
// returns them with the failing op's error, wrapped with its path. When the
// request fails as a whole (connection loss, expiry), there are no results:
// Multi returns nil and the error.
func (c *Conn) Multi(ctx context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error) {
	if err := c.begin(ctx, "multi", ""); err != nil {
		return nil, err
	}
	reqs := make([]any, len(ops))
	for i, op := range ops {
		req, err := multiRequest(op)
		if err != nil {
			return nil, proto.Wrap("multi", opPath(op), fmt.Errorf("op %d: %w", i, err))
		}
		reqs[i] = req
	}
	res, err := c.zc.Multi(reqs...)
	return c.multiResults(ops, res, err)
}

// multiRequest translates one op into the request type go-zookeeper's Multi
// takes.
func multiRequest(op zkapi.Op) (any, error) {
	switch o := derefOp(op).(type) {
	case zkapi.CreateOp:
		if o.Mode == zkapi.Container {
			return nil, fmt.Errorf("%w: container create inside multi is not supported by go-zookeeper", zkapi.ErrBadArguments)
		}
		if proto.IsTTL(o.Mode) || o.TTLMillis != 0 {
			// go-zookeeper's Multi takes no CreateTTLRequest, and a TTL
			// flag under a create header makes 3.8.0 fail the whole multi
			// as unreadable (raw case "multi with a TTL mode under a
			// create header").
			return nil, fmt.Errorf("%w: TTL create inside multi is not supported by go-zookeeper", zkapi.ErrBadArguments)
		}
		flags, err := createFlags(o.Mode)
		if err != nil {
			return nil, err
		}
		return &zk.CreateRequest{Path: o.Path, Data: o.Data, Acl: toZK(o.ACL), Flags: flags}, nil
	case zkapi.DeleteOp:
		return &zk.DeleteRequest{Path: o.Path, Version: o.Version}, nil
	case zkapi.SetOp:
		return &zk.SetDataRequest{Path: o.Path, Data: o.Data, Version: o.Version}, nil
	case zkapi.CheckOp:
		return &zk.CheckVersionRequest{Path: o.Path, Version: o.Version}, nil
	}
	return nil, fmt.Errorf("%w: unsupported op %T", zkapi.ErrBadArguments, op)
}

// derefOp accepts pointers to ops as well: *CreateOp satisfies zkapi.Op too.
// A nil op or nil pointer comes back as nil.
func derefOp(op zkapi.Op) zkapi.Op {
	switch o := op.(type) {
	case *zkapi.CreateOp:
		if o != nil {
			return *o
		}
	case *zkapi.DeleteOp:
		if o != nil {
			return *o
		}
	case *zkapi.SetOp:
		if o != nil {
			return *o
		}
	case *zkapi.CheckOp:
		if o != nil {
			return *o
		}
	default:
		return op
	}
	return nil
}

// opPath names an op's path; ops may be given by pointer.
func opPath(op zkapi.Op) string { return proto.OpPath(derefOp(op)) }

// multiResults converts go-zookeeper's answer. An op error inside the
// results is the Multi's error even if go-zookeeper returned none (v1.0.4
// always returns the first one; this does not rely on it).
func (c *Conn) multiResults(ops []zkapi.Op, res []zk.MultiResponse, err error) ([]zkapi.OpResult, error) {
	if len(res) == 0 && len(ops) > 0 {
		if err == nil {
			err = fmt.Errorf("%w: no results for %d ops", zkapi.ErrMarshalling, len(ops))
		}
		return nil, c.fail("multi", "", err)
	}
	if len(res) != len(ops) {
		return nil, proto.Wrap("multi", "", fmt.Errorf("%w: %d results for %d ops", zkapi.ErrMarshalling, len(res), len(ops)))
	}
	out := make([]zkapi.OpResult, len(res))
	failed := -1
	for i, r := range res {
		out[i] = opResult(ops[i], r)
		if failed < 0 && out[i].Err != nil {
			failed = i
		}
	}
	switch {
	case failed >= 0:
		if err == nil {
			err = res[failed].Error
		}
		return out, c.fail("multi", opPath(ops[failed]), err)
	case err != nil:
		return out, c.fail("multi", "", err)
	}
	return out, nil
}

func opResult(op zkapi.Op, r zk.MultiResponse) zkapi.OpResult {
	out := zkapi.OpResult{Err: bareError(r.Error)}
	if out.Err != nil {
		return out
	}
	switch derefOp(op).(type) {
	case zkapi.CreateOp:
		out.Path = r.String
	case zkapi.SetOp:
		out.Stat = statOf(true, r.Stat)
	}
	return out
}
