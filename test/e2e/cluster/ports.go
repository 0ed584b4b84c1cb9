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
