package zkapi_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/zksim/zksim/zkapi"
)

func TestCode_RoundTrip(t *testing.T) {
	for _, code := range []int32{-2, -4, -5, -6, -7, -8, -100, -101, -102, -103, -108, -110, -111, -112, -114, -115, -118, -121} {
		err := zkapi.ErrorForCode(code)
		if got := zkapi.Code(fmt.Errorf("wrapped: %w", zkapi.Wrap("create", "/a", err))); got != code {
			t.Errorf("Code(ErrorForCode(%d)) = %d", code, got)
		}
		if zkapi.Name(err) == "SystemError" {
			t.Errorf("code %d has no name", code)
		}
	}
	if zkapi.Code(nil) != 0 || zkapi.ErrorForCode(0) != nil || zkapi.Name(nil) != "OK" {
		t.Error("nil and 0 do not map to each other")
	}
	if zkapi.Code(errors.New("other")) != -1 || zkapi.Name(errors.New("other")) != "SystemError" {
		t.Error("an unknown error is not SystemError")
	}
	if zkapi.ErrorForCode(-999) == nil {
		t.Error("unknown code gave nil")
	}
}

func TestWrap_KeepsSentinelAndPath(t *testing.T) {
	err := zkapi.Wrap("delete", "/x/y", zkapi.ErrNotEmpty)
	if !errors.Is(err, zkapi.ErrNotEmpty) || err.Error() != "delete /x/y: zkapi: node has children" {
		t.Fatalf("got %v", err)
	}
	if zkapi.Wrap("get", "/", nil) != nil {
		t.Fatal("Wrap(nil) is not nil")
	}
	if zkapi.Sentinel(err) != zkapi.ErrNotEmpty || zkapi.Name(zkapi.ErrClosed) != "Closed" {
		t.Fatal("Sentinel or Name lost the sentinel")
	}
}

func TestCreateMode_ParseString(t *testing.T) {
	for m := zkapi.Persistent; m <= zkapi.Container; m++ {
		got, err := zkapi.ParseCreateMode(m.String())
		if err != nil || got != m {
			t.Errorf("round trip of %v: %v %v", m, got, err)
		}
	}
	if _, err := zkapi.ParseCreateMode("sticky"); err == nil {
		t.Error("parsed an unknown mode")
	}
	if zkapi.CreateMode(9).Valid() || !zkapi.EphemeralSequential.IsEphemeral() || !zkapi.EphemeralSequential.IsSequential() {
		t.Error("mode predicates wrong")
	}
}

func TestSession_Lost(t *testing.T) {
	s := zkapi.Session{ID: 7, State: zkapi.StateDisconnected}
	if s.Lost(7) {
		t.Error("a disconnected session is not lost")
	}
	for _, l := range []zkapi.Session{{ID: 7, State: zkapi.StateExpired}, {ID: 7, State: zkapi.StateClosed}, {ID: 8, State: zkapi.StateConnected}} {
		if !l.Lost(7) {
			t.Errorf("%v should count as losing session 7", l)
		}
	}
}
