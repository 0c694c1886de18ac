package ensemble

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// lowestPort is where the choice of ports starts: above the well-known
// and common service ports.
const lowestPort = 10000

// freePorts returns n distinct loopback TCP ports that nothing listens
// on now, below the kernel's ephemeral range: a port from that range,
// once its server is killed, can be handed to any outgoing connection,
// and the server could not bind it again on Restart. Each is checked by
// binding it, all held until every one is chosen. Another process may
// still take one before java binds it: Start sees the bind error in the
// log and tries again with fresh ports. The choice is random (the
// runtime's seeded source): ports reach no trace or verdict.
func freePorts(n int) ([]int, error) {
	high := ephemeralLow()
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n && tries < 100*n; tries++ {
		p := lowestPort + rand.IntN(high-lowestPort)
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		held = append(held, l)
		ports = append(ports, p)
	}
	if len(ports) < n {
		return nil, fmt.Errorf("%w: found %d free ports of the %d needed in %d..%d", ErrPortTaken, len(ports), n, lowestPort, high-1)
	}
	return ports, nil
}

// ephemeralLow is the first port of the kernel's ephemeral range (Linux;
// elsewhere, and where the range leaves too little below it, IANA's
// 49152 or 32768).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if low, err := strconv.Atoi(f[0]); err == nil && low > lowestPort+1000 {
				return low
			}
		}
	}
	return 32768
}
