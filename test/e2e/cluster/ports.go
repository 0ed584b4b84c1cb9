package cluster

import (
	"fmt"
	"net"
	"sync"
)

// handedOut remembers every port given to a test in this process so that two parallel tests never
// get the same one, even if the kernel hands it out twice after it was closed.
var (
	portsMu   sync.Mutex
	handedOut = map[int]bool{}
)

// FreePort returns a loopback TCP port that was free a moment ago: it listens on 127.0.0.1:0,
// reads the port and closes the listener.
func FreePort() (int, error) {
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("cluster: pick a free port: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		if err := l.Close(); err != nil {
			return 0, fmt.Errorf("cluster: close probe listener on %d: %w", port, err)
		}
		if !handedOut[port] {
			handedOut[port] = true
			return port, nil
		}
	}
	return 0, fmt.Errorf("cluster: no unused free port after 100 tries")
}

// BrokerPort returns a free client port p whose VIP channel port, p−2 (the broker listens there
// too, as Apache's does), is free as well; both are handed out.
func BrokerPort() (int, error) {
	for range 100 {
		p, err := FreePort()
		if err != nil {
			return 0, err
		}
		if reserve(p - 2) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("cluster: no free port p with p-2 free after 100 tries")
}

// reserve hands out port if it is free and was not handed out before.
func reserve(port int) bool {
	portsMu.Lock()
	defer portsMu.Unlock()
	if port < 1024 || handedOut[port] {
		return false
	}
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return false
	}
	if l.Close() != nil {
		return false
	}
	handedOut[port] = true
	return true
}
