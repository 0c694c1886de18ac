package gozk

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

func TestMapError_Table(t *testing.T) {
	netErr := &net.OpError{Op: "write", Net: "tcp", Err: os.ErrDeadlineExceeded}
	other := errors.New("something else")
	tests := []struct {
		in      error
		closing bool
		want    error // the zkapi sentinel; nil: returned unchanged
	}{
		{zk.ErrConnectionClosed, false, zkapi.ErrConnectionLoss},
		{zk.ErrConnectionClosed, true, zkapi.ErrClosed},
		{zk.ErrNoServer, false, zkapi.ErrConnectionLoss},
		{zk.ErrNoServer, true, zkapi.ErrClosed},
		{zk.ErrClosing, false, zkapi.ErrClosed},
		{zk.ErrClosing, true, zkapi.ErrClosed},
		{zk.ErrInvalidPath, false, zkapi.ErrBadArguments},
		{fmt.Errorf("Create with TTL flag disallowed: %w", zk.ErrInvalidFlags), false, zkapi.ErrBadArguments},
		{zk.ErrBadArguments, false, zkapi.ErrBadArguments},
		{zk.ErrShortBuffer, false, zkapi.ErrMarshalling},
		{zk.ErrSessionExpired, false, zkapi.ErrSessionExpired},
		{zk.ErrSessionExpired, true, zkapi.ErrSessionExpired},
		{zk.ErrNoNode, false, zkapi.ErrNoNode},
		{zk.ErrNodeExists, false, zkapi.ErrNodeExists},
		{zk.ErrNotEmpty, false, zkapi.ErrNotEmpty},
		{zk.ErrBadVersion, false, zkapi.ErrBadVersion},
		{zk.ErrNoChildrenForEphemerals, false, zkapi.ErrNoChildrenForEphemerals},
		{zk.ErrAPIError, false, zkapi.ErrAPIError},
		{zk.ErrNoAuth, false, zkapi.ErrNoAuth},
		{zk.ErrInvalidACL, false, zkapi.ErrInvalidACL},
		{zk.ErrAuthFailed, false, zkapi.ErrAuthFailed},
		{zk.ErrSessionMoved, false, zkapi.ErrSessionMoved},
		// Codes go-zookeeper has no sentinel for: ErrCode.toError's text.
		{errors.New("unknown error: -2"), false, zkapi.ErrRuntimeInconsistency},
		{errors.New("unknown error: -4"), false, zkapi.ErrConnectionLoss},
		{errors.New("unknown error: -6"), false, zkapi.ErrUnimplemented},
		{errors.New("unknown error: -7"), false, zkapi.ErrOperationTimeout},
		{errors.New("unknown error: -121"), false, zkapi.ErrNoWatcher},
		{errors.New("unknown error: -1"), false, nil},
		{errors.New("unknown error: -999"), false, nil},
		// The link itself.
		{netErr, false, zkapi.ErrConnectionLoss},
		{io.EOF, false, zkapi.ErrConnectionLoss},
		{net.ErrClosed, false, zkapi.ErrConnectionLoss},
		{errors.New("zk: could not connect to 10.0.0.1:2181"), false, zkapi.ErrConnectionLoss},
		// No zkapi sentinel.
		{zk.ErrNothing, false, nil},
		{zk.ErrReconfigDisabled, false, nil},
		{other, false, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v/closing=%v", tt.in, tt.closing), func(t *testing.T) {
			got := mapError(tt.in, tt.closing)
			if !errors.Is(got, tt.in) {
				t.Errorf("mapError(%v) = %v, lost the original", tt.in, got)
			}
			if tt.want == nil {
				if got != tt.in {
					t.Errorf("mapError(%v) = %v, want it unchanged", tt.in, got)
				}
				return
			}
			if !errors.Is(got, tt.want) {
				t.Errorf("mapError(%v) = %v, want errors.Is %v", tt.in, got, tt.want)
			}
			if s := proto.Sentinel(got); s != tt.want {
				t.Errorf("proto.Sentinel(%v) = %v, want %v", got, s, tt.want)
			}
			if b := bareError(tt.in); !tt.closing && b != tt.want {
				t.Errorf("bareError(%v) = %v, want %v", tt.in, b, tt.want)
			}
		})
	}
}

func TestMapError_Nil(t *testing.T) {
	if err := mapError(nil, true); err != nil {
		t.Errorf("mapError(nil) = %v", err)
	}
	if err := bareError(nil); err != nil {
		t.Errorf("bareError(nil) = %v", err)
	}
}

func TestMapError_MessageKeepsOriginal(t *testing.T) {
	err := proto.Wrap("create", "/a", mapError(zk.ErrNodeExists, false))
	const want = "create /a: zkapi: node already exists (zk: node already exists)"
	if err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
}

func TestCreateFlags(t *testing.T) {
	want := map[zkapi.CreateMode]int32{
		zkapi.Persistent:           zk.FlagPersistent,
		zkapi.Ephemeral:            zk.FlagEphemeral,
		zkapi.PersistentSequential: zk.FlagSequence,
		zkapi.EphemeralSequential:  zk.FlagEphemeralSequential,
		zkapi.Container:            zk.FlagContainer,
		// go-zookeeper's CreateTTL takes these; its Create and Multi
		// refuse them (Conn.Create, multiRequest).
		zkapi.PersistentWithTTL:           zk.FlagTTL,
		zkapi.PersistentSequentialWithTTL: zk.FlagPersistentSequentialWithTTL,
	}
	for mode, flags := range want {
		got, err := createFlags(mode)
		if err != nil || got != flags {
			t.Errorf("createFlags(%v) = %d, %v; want %d", mode, got, err, flags)
		}
	}
	for _, mode := range []zkapi.CreateMode{-1, 7, 9} {
		if _, err := createFlags(mode); !errors.Is(err, zkapi.ErrBadArguments) {
			t.Errorf("createFlags(%v) error = %v, want ErrBadArguments", mode, err)
		}
	}
}

func TestConvertEvent(t *testing.T) {
	tests := []struct {
		in   zk.Event
		want zkapi.Event
	}{
		{zk.Event{Type: zk.EventNodeCreated, Path: "/a"}, zkapi.Event{Type: zkapi.EventNodeCreated, Path: "/a"}},
		{zk.Event{Type: zk.EventNodeDeleted, Path: "/a"}, zkapi.Event{Type: zkapi.EventNodeDeleted, Path: "/a"}},
		{zk.Event{Type: zk.EventNodeDataChanged, Path: "/a"}, zkapi.Event{Type: zkapi.EventNodeDataChanged, Path: "/a"}},
		{zk.Event{Type: zk.EventNodeChildrenChanged, Path: "/a"}, zkapi.Event{Type: zkapi.EventNodeChildrenChanged, Path: "/a"}},
		{zk.Event{Type: zk.EventNotWatching, Path: "/a", Err: zk.ErrSessionExpired},
			zkapi.Event{Type: zkapi.EventNotWatching, Path: "/a", Err: zkapi.ErrSessionExpired}},
		{zk.Event{Type: zk.EventNotWatching, Path: "/a", Err: zk.ErrClosing},
			zkapi.Event{Type: zkapi.EventNotWatching, Path: "/a", Err: zkapi.ErrClosed}},
	}
	for _, tt := range tests {
		if got := convertEvent(tt.in); got != tt.want {
			t.Errorf("convertEvent(%+v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestConfig_Validate(t *testing.T) {
	tests := []struct {
		name    string
		servers []string
		cfg     Config
		want    string // substring of the error; "" for none
	}{
		{"ok", []string{"127.0.0.1:2181"}, Config{SessionTimeout: 2e9}, ""},
		{"no servers", nil, Config{SessionTimeout: 2e9}, "no servers"},
		{"empty server", []string{"a:1", " "}, Config{SessionTimeout: 2e9}, "server 1 is empty"},
		{"zero timeout", []string{"a:1"}, Config{}, "SessionTimeout must be between 1ms"},
		{"sub-ms timeout", []string{"a:1"}, Config{SessionTimeout: 999_999}, "SessionTimeout"},
		{"huge timeout", []string{"a:1"}, Config{SessionTimeout: 1 << 62}, "SessionTimeout"},
		{"negative connect", []string{"a:1"}, Config{SessionTimeout: 2e9, ConnectTimeout: -1}, "ConnectTimeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.validate(tt.servers)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("validate: %v", err)
			case tt.want == "":
			case err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrConfig):
				t.Errorf("validate: %v, want ErrConfig mentioning %q", err, tt.want)
			}
		})
	}
}
