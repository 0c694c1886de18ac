// Package wire is ZooKeeper's client protocol as a 3.8 server speaks it:
// frames of jute records, decoded into the records of package internal/proto
// (Requests) and encoded from its Replies and Notifications. It is the
// project's one jute codec: the wire server (internal/netserver), the
// session killer (expire) and the real client's shim for the requests
// go-zookeeper cannot send (zkapi/gozk) all read and write through it. It
// imports the records, never the Machine. It does no I/O beyond reading one frame from a reader,
// so a fuzzer can drive every decoder directly.
//
// Every message on the wire is a frame: a big-endian int32 length, then
// that many bytes. Jute ints and longs are big-endian; a boolean is one
// byte; a buffer or string is an int32 length (-1 for null) then the bytes;
// a vector is an int32 count (-1 for null) then its elements. The records
// are those of zookeeper-jute/src/main/resources/zookeeper.jute.
//
// DecodeRequest sorts each request the way ZooKeeper 3.8.0's server does:
// a Body for the Machine (create, getData, multi...), a Local request the
// server answers from its own state (auth, whoAmI, checkWatches,
// multiRead...), or a refusal Code with no effect but, for a write, a
// zxid (a body ZooKeeper cannot read, a TTL node, reconfig...). Only a
// frame too short for its header, or an unreadable auth or sasl packet,
// is an error: ZooKeeper closes such a connection without a reply. The
// Append functions write the replies, byte for byte as ZooKeeper writes
// them; AppendConnect and AppendRequest are the client side, for tests.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Op is a request type (ZooDefs.OpCode).
type Op int32

// Request types (ZooDefs.OpCode). The Machine serves the closed set of
// proto Requests; the server answers the others itself (see Local) or
// refuses them as ZooKeeper 3.8 does. A code ZooKeeper does not know is
// answered with Unimplemented and the connection closes.
const (
	OpCreate               Op = 1
	OpDelete               Op = 2
	OpExists               Op = 3
	OpGetData              Op = 4
	OpSetData              Op = 5
	OpGetACL               Op = 6
	OpSetACL               Op = 7
	OpGetChildren          Op = 8
	OpSync                 Op = 9
	OpPing                 Op = 11
	OpGetChildren2         Op = 12
	OpCheck                Op = 13
	OpMulti                Op = 14
	OpCreate2              Op = 15
	OpReconfig             Op = 16
	OpCheckWatches         Op = 17
	OpRemoveWatches        Op = 18
	OpCreateContainer      Op = 19
	OpDeleteContainer      Op = 20
	OpCreateTTL            Op = 21
	OpMultiRead            Op = 22
	OpAuth                 Op = 100
	OpSetWatches           Op = 101
	OpSASL                 Op = 102
	OpGetEphemerals        Op = 103
	OpGetAllChildrenNumber Op = 104
	OpSetWatches2          Op = 105
	OpAddWatch             Op = 106
	OpWhoAmI               Op = 107
	OpCreateSession        Op = -10
	OpCloseSession         Op = -11
	opError                Op = -1 // a failed op inside a multi reply
)

var opNames = map[Op]string{
	OpCreate: "create", OpDelete: "delete", OpExists: "exists", OpGetData: "getData",
	OpSetData: "setData", OpGetACL: "getACL", OpSetACL: "setACL", OpGetChildren: "getChildren",
	OpSync: "sync", OpPing: "ping", OpGetChildren2: "getChildren2", OpCheck: "check",
	OpMulti: "multi", OpCreate2: "create2", OpReconfig: "reconfig", OpCheckWatches: "checkWatches",
	OpRemoveWatches: "removeWatches", OpCreateContainer: "createContainer",
	OpDeleteContainer: "deleteContainer", OpCreateTTL: "createTTL", OpMultiRead: "multiRead",
	OpAuth: "auth", OpSetWatches: "setWatches", OpSASL: "sasl", OpGetEphemerals: "getEphemerals",
	OpGetAllChildrenNumber: "getAllChildrenNumber", OpSetWatches2: "setWatches2",
	OpAddWatch: "addWatch", OpWhoAmI: "whoAmI", OpCreateSession: "createSession",
	OpCloseSession: "closeSession", opError: "error",
}

func (o Op) String() string {
	if n, ok := opNames[o]; ok {
		return n
	}
	return fmt.Sprintf("op(%d)", int32(o))
}

// Known reports whether ZooKeeper 3.8 knows the request type
// (Request.isValid, plus auth and sasl, which it handles before that
// check). Any other type is answered with Unimplemented, zxid -1, and the
// connection closes (UnimplementedRequestProcessor).
func (o Op) Known() bool {
	_, ok := opNames[o]
	return ok && o != opError
}

// Write reports whether ZooKeeper logs a transaction for the request type
// (PrepRequestProcessor.pRequest2Txn): such a request takes a zxid even
// when it fails, its failure being an error transaction.
func (o Op) Write() bool {
	switch o {
	case OpCreate, OpCreate2, OpCreateContainer, OpCreateTTL, OpDelete, OpDeleteContainer,
		OpSetData, OpSetACL, OpCheck, OpMulti, OpReconfig, OpCreateSession, OpCloseSession:
		return true
	}
	return false
}

// Result codes (KeeperException.Code) the server answers with that are
// not outcomes of the Machine.
const (
	CodeMarshalling      int32 = -5
	CodeUnimplemented    int32 = -6
	CodeBadArguments     int32 = -8
	CodeInvalidACL       int32 = -114
	CodeAuthFailed       int32 = -115
	CodeNoWatcher        int32 = -121
	CodeReconfigDisabled int32 = -123
)

// Reserved xids: the server tags every watch notification with XidWatch
// and answers every ping with XidPing, whatever xid the client sent. (Auth
// packets, -4 by convention, and setWatches, -8, are answered with the
// client's own xid.)
const (
	XidWatch int32 = -1
	XidPing  int32 = -2
)

// Sizes on the wire.
const (
	// PasswdLen is the length of the session password the server issues.
	PasswdLen = 16
	// stateSyncConnected is KeeperState.SyncConnected, the state every
	// notification on a live connection carries.
	stateSyncConnected int32 = 3
)

// ErrMalformed is returned for a frame that is not a well-formed record:
// the server closes such a connection, as ZooKeeper does on an IOException
// while deserializing, and keeps the session.
var ErrMalformed = errors.New("wire: malformed record")

// ErrFrameSize is returned for a length prefix that is negative or larger
// than the server's jute.maxbuffer: ZooKeeper closes the connection
// ("Len error") without reading the body.
var ErrFrameSize = errors.New("wire: frame length out of range")

// ReadFrame reads one frame into buf (grown if too small) and returns its
// body. A length outside [0, max] returns ErrFrameSize without reading on;
// a stream that ends inside a frame returns io.ErrUnexpectedEOF.
func ReadFrame(r io.Reader, buf []byte, max int) ([]byte, error) {
	var prefix [4]byte
	if _, err := io.ReadFull(r, prefix[:]); err != nil {
		return nil, err
	}
	return ReadBody(r, prefix, buf, max)
}

// ReadBody reads the body of a frame whose length prefix has been read.
func ReadBody(r io.Reader, prefix [4]byte, buf []byte, max int) ([]byte, error) {
	size := int32(binary.BigEndian.Uint32(prefix[:]))
	if size < 0 || int(size) > max {
		return nil, fmt.Errorf("%w: %d (jute.maxbuffer %d)", ErrFrameSize, size, max)
	}
	if cap(buf) < int(size) {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf, nil
}

// FourLetterWord reports whether a frame's length prefix is one of the
// admin commands ZooKeeper accepts on its client port in place of a
// connect request ("ruok", "srvr", ...), and which
// (FourLetterCommands.cmd2String; telnet's close sequence, also listed
// there, is a negative length and closes the connection either way).
func FourLetterWord(prefix [4]byte) (string, bool) {
	switch w := string(prefix[:]); w {
	case "ruok", "srvr", "stat", "conf", "cons", "crst", "dump", "envi", "gtmk",
		"hash", "isro", "mntr", "srst", "stmk", "wchc", "wchp", "wchs", "dirs":
		return w, true
	}
	return "", false
}
