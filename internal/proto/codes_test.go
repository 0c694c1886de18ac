package proto_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

func TestCode_RoundTrip(t *testing.T) {
	for _, code := range []int32{-2, -4, -5, -6, -7, -8, -100, -101, -102, -103, -108, -110, -111, -112, -114, -115, -118, -121} {
		err := proto.ErrorForCode(code)
		if got := proto.Code(fmt.Errorf("wrapped: %w", proto.Wrap("create", "/a", err))); got != code {
			t.Errorf("Code(ErrorForCode(%d)) = %d", code, got)
		}
		if zkapi.Name(err) == "SystemError" {
			t.Errorf("code %d has no name", code)
		}
	}
	if proto.Code(nil) != 0 || proto.ErrorForCode(0) != nil {
		t.Error("nil and 0 do not map to each other")
	}
	if proto.Code(errors.New("other")) != -1 {
		t.Error("an unknown error is not SystemError")
	}
	if proto.ErrorForCode(-999) == nil {
		t.Error("unknown code gave nil")
	}
}

func TestWrap_KeepsSentinelAndPath(t *testing.T) {
	err := proto.Wrap("delete", "/x/y", zkapi.ErrNotEmpty)
	if !errors.Is(err, zkapi.ErrNotEmpty) || err.Error() != "delete /x/y: zkapi: node has children" {
		t.Fatalf("got %v", err)
	}
	if proto.Wrap("get", "/", nil) != nil {
		t.Fatal("Wrap(nil) is not nil")
	}
	if proto.Sentinel(err) != zkapi.ErrNotEmpty || proto.Sentinel(proto.Wrap("x", "/", zkapi.ErrClosed)) != zkapi.ErrClosed {
		t.Fatal("Sentinel lost the sentinel")
	}
}

func TestCreateMode_ParseString(t *testing.T) {
	for m := zkapi.Persistent; m <= zkapi.PersistentSequentialWithTTL; m++ {
		got, err := proto.ParseCreateMode(m.String())
		if err != nil || got != m {
			t.Errorf("round trip of %v: %v %v", m, got, err)
		}
	}
	if _, err := proto.ParseCreateMode("sticky"); err == nil {
		t.Error("parsed an unknown mode")
	}
	if proto.ValidMode(9) || !proto.IsEphemeral(zkapi.EphemeralSequential) || !proto.IsSequential(zkapi.EphemeralSequential) ||
		proto.IsTTL(zkapi.Ephemeral) || !proto.IsTTL(zkapi.PersistentSequentialWithTTL) {
		t.Error("mode predicates wrong")
	}
}

func TestParseACL_RoundTrip(t *testing.T) {
	for _, s := range []string{
		"world:anyone:cdrwa",
		"digest:u1:fpT/y03U+EjItKZOSLGvjnJlyng=:r,ip:10.0.0.0/8:cw",
		"auth::a",
		"world:anyone:0",
		"world:anyone:63",
	} {
		acl, err := proto.ParseACL(s)
		if err != nil {
			t.Fatalf("ParseACL(%q): %v", s, err)
		}
		var got string
		for i, a := range acl {
			if i > 0 {
				got += ","
			}
			got += a.String()
		}
		if got != s {
			t.Errorf("ParseACL(%q) renders as %q", s, got)
		}
	}
}

func TestParseACL_Special(t *testing.T) {
	open, err := proto.ParseACL("open")
	if err != nil || len(open) != 1 || open[0] != zkapi.OpenACL[0] {
		t.Errorf("ParseACL(open) = %v, %v", open, err)
	}
	empty, err := proto.ParseACL("")
	if err != nil || empty == nil || len(empty) != 0 {
		t.Errorf("ParseACL(\"\") = %#v, %v; want an empty non-nil list", empty, err)
	}
	for _, bad := range []string{"world", "world:anyone", "world:anyone:x"} {
		if _, err := proto.ParseACL(bad); err == nil {
			t.Errorf("ParseACL(%q) succeeded", bad)
		}
	}
}
