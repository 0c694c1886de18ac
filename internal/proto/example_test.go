package proto_test

import (
	"fmt"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// Each record prints as one line, as traces show it; Paths names the
// nodes a request acts on, and FrameSize its length on the wire.
func Example() {
	reqs := []proto.Request{
		proto.Create{Path: "/lock/n-", Data: []byte("c1"), Mode: zkapi.EphemeralSequential},
		proto.GetData{Path: "/lock", Watch: true},
		proto.Multi{Ops: []zkapi.Op{zkapi.CheckOp{Path: "/a", Version: 1}, zkapi.DeleteOp{Path: "/b", Version: -1}}},
		proto.AddWatch{Path: "/config", Recursive: true},
		proto.RemoveWatches{Path: "/config", Type: proto.WatcherAny},
		proto.Ping{},
	}
	for _, r := range reqs {
		fmt.Printf("%s | paths %v | %d bytes\n", r, proto.Paths(r), proto.FrameSize(r))
	}
	fmt.Println(proto.Reply{Zxid: 7, Path: "/lock/n-0000000000"})
	fmt.Println(proto.Notification{Zxid: 8, Event: zkapi.Event{Type: zkapi.EventNodeDeleted, Path: "/lock"}})
	// Output:
	// create /lock/n- "c1" ephemeral-sequential | paths [/lock/n-] | 57 bytes
	// get /lock watch | paths [/lock] | 18 bytes
	// multi [check /a v=1; delete /b v=-1] | paths [/a /b] | 55 bytes
	// addwatch /config recursive | paths [/config] | 23 bytes
	// removewatches /config any | paths [/config] | 23 bytes
	// ping | paths [] | 8 bytes
	// z=7 OK path=/lock/n-0000000000
	// NodeDeleted /lock z=8
}
