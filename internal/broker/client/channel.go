package client

import (
	"time"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Channel is a client connection as the managers see it; *remoting.Conn satisfies it.
type Channel interface {
	ID() uint64
	RemoteAddr() string
	InvokeOneway(req *protocol.Command) error
}

// ClientChannel is one client on one connection.
type ClientChannel struct {
	Channel    Channel
	ClientID   string
	Language   string
	Version    int32
	LastUpdate time.Time
}
