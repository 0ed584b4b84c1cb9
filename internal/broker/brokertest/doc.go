// Package brokertest runs a real in-process broker for tests and speaks raw remoting frames to it:
// Start opens a broker on 127.0.0.1:0 over a temporary store with small files and no nameserver,
// Dial returns a Conn that matches responses to requests by opaque and keeps the requests the
// broker sends on its own (NOTIFY_CONSUMER_IDS_CHANGED), and the request builders spell the
// headers as the clients of protocol.md §2 do.
package brokertest
