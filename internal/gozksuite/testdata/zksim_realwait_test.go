package zk

// Added to go-zookeeper v1.0.4's package for the real-server run only:
// its harness waits for a cluster with FLWSrvr, whose version pattern
// (digits, dots, dashes, and a dd/mm/yyyy date) rejects Debian's 3.8.0
// ("3.8.0-${mvngit.commit.id}, built on 2024-12-29 17:54 UTC"), so the
// harness would never see a server up. internal/gozksuite swaps that one
// call for srvrServing, which asks the same srvr question and accepts any
// version: every server must answer with a Mode line (it serves).

import (
	"io/ioutil"
	"net"
	"strings"
	"time"
)

func srvrServing(addrs []string, timeout time.Duration) (interface{}, bool) {
	for _, addr := range addrs {
		c, err := net.DialTimeout("tcp", addr, timeout)
		if err != nil {
			return nil, false
		}
		c.SetDeadline(time.Now().Add(timeout))
		c.Write([]byte("srvr"))
		b, _ := ioutil.ReadAll(c)
		c.Close()
		if !strings.Contains(string(b), "\nMode: ") {
			return nil, false
		}
	}
	return nil, true
}
