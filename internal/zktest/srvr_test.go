package zktest_test

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/zktest"
)

// srvrOutput is what Debian's ZooKeeper 3.8.0 prints for srvr.
const srvrOutput = `Zookeeper version: 3.8.0-${mvngit.commit.id}, built on 2024-12-29 17:54 UTC
Latency min/avg/max: 0/0.0/0
Received: 6
Sent: 5
Connections: 1
Outstanding: 0
Zxid: 0x100000002
Mode: follower
Node count: 5
`

func TestSrvr_Parse(t *testing.T) {
	addr, _ := fakeServer(t, func(c net.Conn) error {
		if err := expect(c, []byte("srvr")); err != nil {
			return err
		}
		_, err := io.WriteString(c, srvrOutput)
		return err
	})
	fields, err := zktest.Srvr(addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"Mode":                "follower",
		"Zxid":                "0x100000002",
		"Latency min/avg/max": "0/0.0/0",
		"Zookeeper version":   "3.8.0-${mvngit.commit.id}, built on 2024-12-29 17:54 UTC",
	} {
		if fields[k] != want {
			t.Errorf("%s = %q, want %q", k, fields[k], want)
		}
	}
}

func TestSrvr_NotServing(t *testing.T) {
	addr, _ := fakeServer(t, func(c net.Conn) error {
		if err := expect(c, []byte("srvr")); err != nil {
			return err
		}
		_, err := io.WriteString(c, "This ZooKeeper instance is not currently serving requests\n")
		return err
	})
	if _, err := zktest.Srvr(addr, time.Second); !errors.Is(err, zktest.ErrNotServing) {
		t.Fatalf("Srvr = %v, want ErrNotServing", err)
	}
}
