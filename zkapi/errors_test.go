package zkapi_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/zksim/zksim/zkapi"
)

func TestName_Sentinels(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, "OK"}, {zkapi.ErrClosed, "Closed"}, {errors.New("other"), "SystemError"},
		{zkapi.ErrMarshalling, "MarshallingError"}, {zkapi.ErrNoWatcher, "NoWatcher"},
		{fmt.Errorf("delete /x: %w", zkapi.ErrNotEmpty), "NotEmpty"},
	} {
		if got := zkapi.Name(tc.err); got != tc.want {
			t.Errorf("Name(%v) = %q, want %q", tc.err, got, tc.want)
		}
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
