package zoo

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/zksim/zksim/barrier"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// barrierAssumeOnWake enters by creating an ephemeral sequential node and
// listing the directory with a watch: with n nodes it passes, and
// otherwise it waits for the listing to change and then passes without
// counting again, taking any change for the last arrival. Its Leave is
// DirEmpty's. Its defect bites with three members or more: the second
// arrival wakes the first, which passes with two.
func barrierAssumeOnWake() recipe.Barrier {
	return recipe.Barrier{Name: NameBarrierAssumeOnWake, Enter: func(ctx context.Context, conn zkapi.Conn, dir, id string, n int) (recipe.Leaver, error) {
		p, err := join(ctx, conn, dir, id)
		if err != nil {
			return nil, err
		}
		kids, _, w, err := conn.ChildrenW(ctx, dir)
		if err == nil && len(kids) < n {
			_, err = w.Wait(ctx)
		}
		if err != nil {
			conn.Delete(context.WithoutCancel(ctx), p, zkapi.AnyVersion)
			return nil, err
		}
		return dirEmpty{conn, dir, p}, nil
	}}
}

// noReady is the double barrier of the ZooKeeper recipes page without
// its "ready" node: Enter creates an ephemeral sequential node and waits,
// watching the directory's children, until it counts n; Leave deletes its
// node and waits, likewise, until the directory is empty. Its defect: a
// member that leaves first and enters again keeps the directory from
// emptying, and waits for n members while the others wait for none, for
// ever. Every waiter also wakes on every change.
func noReady() recipe.Barrier {
	return recipe.Barrier{Name: NameNoReady, Enter: func(ctx context.Context, conn zkapi.Conn, dir, id string, n int) (recipe.Leaver, error) {
		p, err := join(ctx, conn, dir, id)
		if err != nil {
			return nil, err
		}
		if err := awaitChildren(ctx, conn, dir, func(k int) bool { return k >= n }); err != nil {
			conn.Delete(context.WithoutCancel(ctx), p, zkapi.AnyVersion)
			return nil, err
		}
		return dirEmpty{conn, dir, p}, nil
	}}
}

// leaveEarly is the good double barrier whose Leave only deletes the
// member's node: a member passes Leave while the others of its round are
// still inside.
func leaveEarly() recipe.Barrier { return barrierVariantRecipe(NameLeaveEarly) }

// dirLeave is the good double barrier whose Leave deletes the member's
// node and then waits, watching the directory's children, until no node
// of its round is left: every member waiting to leave wakes on every
// delete and every arrival, most of them to wait again.
func dirLeave() recipe.Barrier { return barrierVariantRecipe(NameDirLeave) }

// waitOnError is the good barriers but for the single barrier's Wait,
// which takes a failed exists() for a missing node, as code that keeps
// only the Stat of exists() (null on an error it swallowed) does: a
// waiter cut off from the server passes a barrier still raised.
func waitOnError() recipe.Barrier { return barrierVariantRecipe(NameWaitOnError) }

// barrierVariant is the good barrier (DoubleBarrier) with one
// part swapped, named by part: the double barrier member's Leave, or the
// single barrier's Wait. A Leave variant carries no single barrier: the
// harness drives it as a double one.
type barrierVariant struct {
	name, part string
	leave      func(conn zkapi.Conn, dir string, m *barrier.Member) recipe.Leaver
	wait       func(ctx context.Context, conn zkapi.Conn, path string) error
}

// barrierVariants are the barrier exhibits that are the good barrier
// with one part swapped.
func barrierVariants() []barrierVariant {
	return []barrierVariant{
		{name: NameLeaveEarly, part: "Leave", leave: func(conn zkapi.Conn, _ string, m *barrier.Member) recipe.Leaver {
			return leaveEarlyLeaver{conn, m}
		}},
		{name: NameDirLeave, part: "Leave", leave: func(conn zkapi.Conn, dir string, m *barrier.Member) recipe.Leaver {
			return dirLeaver{conn, dir, m}
		}},
		{name: NameWaitOnError, part: "Wait", wait: waitOnErrorWait},
	}
}

// barrierVariantRecipe is the recipe of the barrier variant called name.
func barrierVariantRecipe(name string) recipe.Barrier {
	for _, v := range barrierVariants() {
		if v.name == name {
			return v.recipe()
		}
	}
	panic("zoo: no barrier variant " + name)
}

func (v barrierVariant) recipe() recipe.Barrier {
	if v.leave == nil {
		r := DoubleBarrier()
		r.Name = v.name
		single := *r.Single
		single.Wait = v.wait
		r.Single = &single
		return r
	}
	return recipe.Barrier{Name: v.name, Enter: func(ctx context.Context, conn zkapi.Conn, dir, id string, n int) (recipe.Leaver, error) {
		m, err := enterGood(ctx, conn, dir, id, n)
		if err != nil {
			return nil, err
		}
		return v.leave(conn, dir, m), nil
	}}
}

func enterGood(ctx context.Context, conn zkapi.Conn, dir, id string, n int) (*barrier.Member, error) {
	d, err := barrier.NewDouble(conn, dir, n, barrier.Options{ID: id})
	if err != nil {
		return nil, err
	}
	return d.Enter(ctx)
}

// join creates the member's node, and the directory (persistent) if it
// is missing.
func join(ctx context.Context, conn zkapi.Conn, dir, id string) (string, error) {
	for {
		p, err := conn.Create(ctx, dir+"/member-"+id+"-", nil, zkapi.EphemeralSequential)
		if !errors.Is(err, zkapi.ErrNoNode) {
			return p, err
		}
		segs := strings.Split(strings.TrimPrefix(dir, "/"), "/")
		for i := range segs {
			_, err := conn.Create(ctx, "/"+strings.Join(segs[:i+1], "/"), nil, zkapi.Persistent)
			if err != nil && !errors.Is(err, zkapi.ErrNodeExists) {
				return "", err
			}
		}
	}
}

// awaitChildren lists dir with a watch until done says the count will
// do, waiting for a change in between.
func awaitChildren(ctx context.Context, conn zkapi.Conn, dir string, done func(int) bool) error {
	for {
		kids, _, w, err := conn.ChildrenW(ctx, dir)
		if err != nil {
			return err
		}
		if done(len(kids)) {
			return nil
		}
		if _, err := w.Wait(ctx); err != nil {
			return err
		}
	}
}

// dirEmpty is a member whose Leave deletes its node and waits until the
// directory is empty.
type dirEmpty struct {
	conn      zkapi.Conn
	dir, path string
}

func (m dirEmpty) Leave(ctx context.Context) error {
	if err := m.conn.Delete(ctx, m.path, zkapi.AnyVersion); err != nil && !errors.Is(err, zkapi.ErrNoNode) {
		return err
	}
	return awaitChildren(ctx, m.conn, m.dir, func(k int) bool { return k == 0 })
}

type leaveEarlyLeaver struct {
	conn zkapi.Conn
	m    *barrier.Member
}

func (l leaveEarlyLeaver) Leave(ctx context.Context) error {
	err := l.conn.Delete(ctx, l.m.Node(), zkapi.AnyVersion)
	if errors.Is(err, zkapi.ErrNoNode) {
		return nil
	}
	return err
}

type dirLeaver struct {
	conn zkapi.Conn
	dir  string
	m    *barrier.Member
}

func (l dirLeaver) Leave(ctx context.Context) error {
	if err := l.conn.Delete(ctx, l.m.Node(), zkapi.AnyVersion); err != nil && !errors.Is(err, zkapi.ErrNoNode) {
		return err
	}
	first, last := l.m.Round()
	for {
		kids, _, w, err := l.conn.ChildrenW(ctx, l.dir)
		if errors.Is(err, zkapi.ErrNoNode) {
			return nil // reaped: nobody is left
		}
		if err != nil {
			return err
		}
		left := false
		for _, k := range kids {
			if seq, ok := seqOf(k); ok && seq >= first && seq <= last {
				left = true
			}
		}
		if !left {
			return nil
		}
		if _, err := w.Wait(ctx); err != nil {
			return err
		}
	}
}

// seqOf is the sequence number ending a member's name.
func seqOf(name string) (int64, bool) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return 0, false
	}
	seq, err := strconv.ParseInt(name[i+1:], 10, 64)
	return seq, err == nil
}

// waitOnErrorWait is waitOnError's single-barrier Wait: any failure of
// exists() reads as the node's absence.
func waitOnErrorWait(ctx context.Context, conn zkapi.Conn, path string) error {
	for {
		_, ok, w, err := conn.ExistsW(ctx, path)
		if err != nil || !ok {
			return nil
		}
		if _, err := w.Wait(ctx); err != nil {
			return nil
		}
	}
}
