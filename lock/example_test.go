package lock_test

import (
	"context"
	"errors"
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
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := fakezk.MustServer(fakezk.Config{})
	defer srv.Close()
	conn, err := srv.Connect(fakezk.ConnOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := guarded(ctx, conn, "/locks/orders"); err != nil {
		fmt.Println(err)
	}
	// Output: held the lock, fenced write: OK
}

// The same code on a real ZooKeeper: the test command (scripts/test.sh) sets
// ZKSIM_ZK_STANDALONE, so this example runs against a real server there;
// without it the example falls back to the fake so that `go test ./...`
// passes anywhere.
func ExampleMutex_realServer() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var conn zkapi.Conn
	if addrs := os.Getenv("ZKSIM_ZK_STANDALONE"); addrs != "" {
		c, err := gozk.DialContext(ctx, strings.Split(addrs, ","), gozk.Config{SessionTimeout: 10 * time.Second})
		if err != nil {
			fmt.Println(err)
			return
		}
		conn = c
	} else {
		srv := fakezk.MustServer(fakezk.Config{})
		defer srv.Close()
		c, err := srv.Connect(fakezk.ConnOptions{})
		if err != nil {
			fmt.Println(err)
			return
		}
		conn = c
	}
	defer conn.Close()
	dir := fmt.Sprintf("/zksim-example-%d", time.Now().UnixNano())
	if err := guarded(ctx, conn, dir); err != nil {
		fmt.Println(err)
	}
	for _, p := range []string{dir + "-last", dir} { // the lock directory is a container: it may be gone
		if err := conn.Delete(ctx, p, -1); err != nil && !errors.Is(err, zkapi.ErrNoNode) {
			fmt.Println(err)
		}
	}
	// Output: held the lock, fenced write: OK
}
