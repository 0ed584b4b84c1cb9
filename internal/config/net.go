package config

import (
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
)

// localHostName is the default brokerName: the host name, else DEFAULT_BROKER (Java
// BrokerConfig.localHostName).
func localHostName() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return DefaultBrokerName
}

// localIPv4 is the default brokerIP1/brokerIP2, chosen as Java's RemotingUtil.getLocalAddress
// does among the IPv4 addresses of interfaces that are up: the first one that is neither loopback
// nor 192.168.x.x (nor link-local), else the last 192.168.x.x one, else 127.0.0.1. IPv6 addresses are not
// considered: ali-ons and the stored message format (bornHost/storeHost) expect IPv4.
func localIPv4() string {
	ifaces, err := net.Interfaces()
	if err != nil {
		return "127.0.0.1"
	}
	var ips []net.IP
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				ips = append(ips, n.IP)
			}
		}
	}
	return pickIPv4(ips)
}

// pickIPv4 applies localIPv4's preference order to ips.
func pickIPv4(ips []net.IP) string {
	lastPrivate := ""
	for _, ip := range ips {
		v4 := ip.To4()
		if v4 == nil || v4.IsLoopback() || v4.IsUnspecified() || v4.IsLinkLocalUnicast() {
			continue
		}
		s := v4.String()
		if strings.HasPrefix(s, "192.168.") {
			lastPrivate = s
			continue
		}
		return s
	}
	if lastPrivate != "" {
		return lastPrivate
	}
	return "127.0.0.1"
}

func joinHostPort(host string, port int) string {
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// checkAddr reports whether addr is host:port with a port in 1-65535.
func checkAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "" {
		return errMissingHost
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 {
		return errBadPort
	}
	return nil
}

var (
	errMissingHost = errors.New("missing host")
	errBadPort     = errors.New("port must be 1-65535")
)
