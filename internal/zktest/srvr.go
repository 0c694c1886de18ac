package zktest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// srvr sends the srvr four-letter command to addr and returns its
// "Key: value" lines as a map ("Mode" is "standalone", "leader", "follower"
// or "observer"). A server that answers without a Mode line, as one without
// quorum does, yields an error wrapping ErrNotServing.
//
// go-zookeeper's FLWSrvr cannot parse what Debian's ZooKeeper 3.8.0 prints:
// its pattern expects a plain version and an MM/DD/YYYY build date, and gets
// "3.8.0-${mvngit.commit.id}, built on 2024-12-29 17:54 UTC". Hence this
// parser, which keeps every line whatever its format.
func srvr(addr string, timeout time.Duration) (map[string]string, error) {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, fmt.Errorf("zktest: srvr %s: %w", addr, err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return nil, fmt.Errorf("zktest: srvr %s: %w", addr, err)
	}
	if _, err := io.WriteString(conn, "srvr"); err != nil {
		return nil, fmt.Errorf("zktest: srvr %s: %w", addr, err)
	}
	out, err := io.ReadAll(conn)
	if err != nil {
		return nil, fmt.Errorf("zktest: srvr %s: %w", addr, err)
	}
	fields := parseSrvr(string(out))
	if _, ok := fields["Mode"]; !ok {
		return fields, fmt.Errorf("%w: srvr %s: %q", ErrNotServing, addr, strings.TrimSpace(string(out)))
	}
	return fields, nil
}

func parseSrvr(out string) map[string]string {
	fields := make(map[string]string)
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if ok && key != "" {
			fields[strings.TrimSpace(key)] = strings.TrimSpace(value)
		}
	}
	return fields
}
