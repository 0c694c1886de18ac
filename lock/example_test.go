package lock_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// guarded is ordinary application code: it only sees a zkapi.Conn.
func guarded(ctx context.Context, conn zkapi.Conn, dir string) error {
	m, err := lock.New(conn, dir, lock.Options{})
	if err != nil {
		return err
	}
	lease, err := m.Acquire(ctx)
	if err != nil {
		return err
	}
	defer lease.Release(ctx)
	token, err := lease.Token(ctx)
	if err != nil {
		return err
	}
	// A write that only lands while the lock is still held.
	_, err = lease.Fenced(ctx, zkapi.CreateOp{Path: dir + "-last", Data: []byte(fmt.Sprint(token))})
	fmt.Println("held the lock, fenced write:", zkapi.Name(err))
	return nil
}

// The lock on the in-memory ZooKeeper.
func ExampleMutex() {
	srv := fakezk.MustServer(fakezk.Config{})
	defer srv.Close()
	conn, _ := srv.Connect(fakezk.ConnOptions{})
	guarded(context.Background(), conn, "/locks/orders")
	// Output: held the lock, fenced write: OK
}

// The same code on a real ZooKeeper: the README test command sets
// ZKSIM_ZK_STANDALONE, so this example runs against a real server there;
// without it the example falls back to the fake so that `go test ./...`
// passes anywhere.
func ExampleMutex_realServer() {
	ctx := context.Background()
	var conn zkapi.Conn
	if addrs := os.Getenv("ZKSIM_ZK_STANDALONE"); addrs != "" {
		c, err := gozk.DialContext(ctx, strings.Split(addrs, ","), gozk.Config{SessionTimeout: 10 * time.Second})
		if err != nil {
			fmt.Println(err)
			return
		}
		conn = c
	} else {
		conn, _ = fakezk.MustServer(fakezk.Config{}).Connect(fakezk.ConnOptions{})
	}
	defer conn.Close()
	dir := fmt.Sprintf("/zksim-example-%d", time.Now().UnixNano())
	guarded(ctx, conn, dir)
	conn.Delete(ctx, dir+"-last", -1)
	conn.Delete(ctx, dir, -1)
	// Output: held the lock, fenced write: OK
}
