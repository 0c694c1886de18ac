package zoo

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// goZKLock is go-zookeeper v1.0.4's zk.Lock (lock.go), with the
// Conn.CreateProtectedEphemeralSequential it calls (conn.go), transcribed
// from *zk.Conn to zkapi.Conn step by step:
//
//   - create "_c_<guid>-lock-<seq>" as a protected ephemeral sequential node,
//     up to three times; on NoNode create the missing parents (persistent)
//     and try again, on any other error give up;
//   - inside the protected create, up to three tries: on session expiry
//     create again, on connection loss list the directory and adopt the
//     child whose name carries the guid, in the order the server lists
//     them (no ephemeralOwner check), or return the listing's error;
//   - parse the sequence as the text after the last "lock-", with Atoi;
//   - loop: getChildren (no watch), parse every child, find the lowest
//     and the highest one below its own, scanning in server order (it does
//     not sort, and needs not); if it is the lowest it holds; otherwise
//     getData(prev, watch), on NoNode list again, wait for the event, and
//     give up if the event carries an error;
//   - unlock deletes the node once; on error it keeps the path.
//
// Differences forced by the transcription, none of which changes a
// decision: errors are compared with errors.Is (go-zookeeper uses ==);
// zkapi's ErrConnectionLoss stands for go-zookeeper's ErrConnectionClosed;
// go-zookeeper cannot be cancelled, so the end of ctx while waiting
// aborts Lock like any other error; the guid is not 16 random bytes but
// the 16 bytes of the holder id's name-based UUID (holderUUID), printed
// the same way (32 hex digits); the lookup checks a name's length before
// slicing it, where go-zookeeper would panic on a short "_c_" name; the
// node's data is the holder id (LockWithData).
//
// Bugs: every error after the create returns from Lock without deleting
// the node, which then blocks the queue for everyone until the session
// ends (samuel/go-zookeeper#229; CURATOR-335 is the same shape in
// Curator's semaphore): connection loss on getChildren or getData (bug
// scenario 6), a foreign child whose name does not parse (scenario 10),
// the end of ctx. A create whose reply is lost is looked up once, and if
// that listing fails too, the applied node is orphaned (scenario 1). The
// lookup adopts the guid's node whoever owns it: after a client gave up
// its session, it is the old session's, which goes when that session
// expires while the new one holds (scenario 2, CURATOR-498). Sequence
// numbers are compared as plain integers, so past 2^31-1 several holders
// see themselves lowest (docs/zk-semantics.md rule 7 and scenario 8). The holder is
// never told that its session ended. Violation: orphan (a node no holder
// owns blocks the queue; deadlock while its session lives), and
// mutual-exclusion at the sequence limit and after an adopted node goes.
//
// harness/gozksim runs go-zookeeper's own code under the same scheduler;
// its TestLock_TranscriptionAgrees checks that both show these bugs. One
// difference (docs/gozksim.md): the library sends the lookup that adopts
// an abandoned session's node on the new session only with three or more
// server addresses; with fewer it fails it with ErrNoServer.
func goZKLock() recipe.Lock {
	return recipe.Lock{Name: NameGoZKLock, Acquire: goZKAcquire}
}

func goZKAcquire(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
	if err := checkArgs(dir, id); err != nil {
		return nil, err
	}
	l := &zkLock{c: conn, path: dir, guid: fmt.Sprintf("%x", holderUUID(id))}
	if err := l.lockWithData(ctx, []byte(id)); err != nil {
		return nil, wrap(NameGoZKLock, dir, err)
	}
	return l, nil
}

// zkLock mirrors zk.Lock's fields.
type zkLock struct {
	c        zkapi.Conn
	path     string
	guid     string
	lockPath string
	seq      int
}

var (
	errGoZKDeadlock  = errors.New("zoo: trying to acquire a lock twice")
	errGoZKNotLocked = errors.New("zoo: not locked")
)

// goZKParseSeq is zk.parseSeq: the text after the last "lock-" (or, for
// the Python client's names, after the last "__"), through Atoi.
func goZKParseSeq(path string) (int, error) {
	parts := strings.Split(path, "lock-")
	if len(parts) == 1 {
		parts = strings.Split(path, "__")
	}
	return strconv.Atoi(parts[len(parts)-1])
}

func (l *zkLock) lockWithData(ctx context.Context, data []byte) error {
	if l.lockPath != "" {
		return errGoZKDeadlock
	}
	path, err := l.createNode(ctx, l.path+"/lock-", data)
	if err != nil {
		return err
	}
	seq, err := goZKParseSeq(path)
	if err != nil {
		return err // the node stays
	}
	if err := l.waitLowest(ctx, seq); err != nil {
		return err // the node stays
	}
	l.seq, l.lockPath = seq, path
	return nil
}

// createNode is the first loop of LockWithData.
func (l *zkLock) createNode(ctx context.Context, prefix string, data []byte) (string, error) {
	var path string
	var err error
	for i := 0; i < 3; i++ {
		path, err = l.createProtected(ctx, prefix, data)
		if errors.Is(err, zkapi.ErrNoNode) {
			var fatal bool
			if fatal, err = l.createParents(ctx); fatal {
				return "", err
			}
		} else if err == nil {
			break
		} else {
			return "", err
		}
	}
	if err != nil {
		return "", err
	}
	return path, nil
}

// createParents creates every missing node of l.path, persistent. Like
// go-zookeeper it returns at once on a fatal error, and otherwise leaves
// behind the error of its last call (nil or NodeExists), which decides
// what LockWithData returns if this was its third try.
func (l *zkLock) createParents(ctx context.Context) (fatal bool, err error) {
	parts := strings.Split(l.path, "/")
	pth := ""
	for _, p := range parts[1:] {
		var exists bool
		pth += "/" + p
		_, exists, err = l.c.Exists(ctx, pth)
		if err != nil {
			return true, err
		}
		if exists {
			continue
		}
		_, err = l.c.Create(ctx, pth, []byte{}, zkapi.Persistent)
		if err != nil && !errors.Is(err, zkapi.ErrNodeExists) {
			return true, err
		}
	}
	return false, err
}

// createProtected is Conn.CreateProtectedEphemeralSequential.
func (l *zkLock) createProtected(ctx context.Context, path string, data []byte) (string, error) {
	parts := strings.Split(path, "/")
	parts[len(parts)-1] = "_c_" + l.guid + "-" + parts[len(parts)-1]
	rootPath := strings.Join(parts[:len(parts)-1], "/")
	protectedPath := strings.Join(parts, "/")
	var newPath string
	var err error
	for i := 0; i < 3; i++ {
		newPath, err = l.c.Create(ctx, protectedPath, data, zkapi.EphemeralSequential)
		switch {
		case errors.Is(err, zkapi.ErrSessionExpired):
			// The node cannot exist: try again.
		case isLoss(err):
			children, _, cerr := l.c.Children(ctx, rootPath)
			if cerr != nil {
				return "", cerr // the applied create, if any, is orphaned
			}
			if p, ok := l.findGUID(children); ok {
				return rootPath + "/" + p, nil
			}
		case err == nil:
			return newPath, nil
		default:
			return "", err
		}
	}
	return "", err
}

// findGUID adopts the first child, in server order, whose name carries the
// guid, whoever owns it.
func (l *zkLock) findGUID(children []string) (string, bool) {
	for _, p := range children {
		if strings.HasPrefix(p, "_c_") && len(p) >= 3+len(l.guid) && p[3:3+len(l.guid)] == l.guid {
			return p, true
		}
	}
	return "", false
}

// waitLowest is the second loop of LockWithData.
func (l *zkLock) waitLowest(ctx context.Context, seq int) error {
	for {
		children, _, err := l.c.Children(ctx, l.path)
		if err != nil {
			return err
		}
		prevSeqPath, lowest, err := goZKScan(children, seq)
		if err != nil {
			return err
		}
		if lowest {
			return nil
		}
		_, _, w, err := l.c.GetW(ctx, l.path+"/"+prevSeqPath)
		if errors.Is(err, zkapi.ErrNoNode) {
			continue
		}
		if err != nil {
			return err
		}
		ev, err := w.Wait(ctx)
		if err != nil {
			return err
		}
		if ev.Err != nil {
			return ev.Err
		}
	}
}

// goZKScan finds, in one pass over the children, whether seq is the lowest
// and which child has the highest sequence below it.
func goZKScan(children []string, seq int) (prevSeqPath string, lowest bool, err error) {
	lowestSeq, prevSeq := seq, -1
	for _, p := range children {
		s, err := goZKParseSeq(p)
		if err != nil {
			return "", false, err
		}
		if s < lowestSeq {
			lowestSeq = s
		}
		if s < seq && s > prevSeq {
			prevSeq, prevSeqPath = s, p
		}
	}
	return prevSeqPath, seq == lowestSeq, nil
}

// Release is zk.Lock.Unlock.
func (l *zkLock) Release(ctx context.Context) error {
	if l.lockPath == "" {
		return errGoZKNotLocked
	}
	if err := l.c.Delete(ctx, l.lockPath, zkapi.AnyVersion); err != nil {
		return err
	}
	l.lockPath, l.seq = "", 0
	return nil
}

// holderUUID is the name-based (version 3, MD5) UUID of id, byte for byte
// Java's UUID.nameUUIDFromBytes, so that guids are deterministic.
func holderUUID(id string) [16]byte {
	u := md5.Sum([]byte(id))
	u[6] = u[6]&0x0f | 0x30
	u[8] = u[8]&0x3f | 0x80
	return u
}
