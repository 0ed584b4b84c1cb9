// Package remoting is the TCP transport of RocketMQ's remoting protocol: a
// Server that serves requests from clients, and a Client that keeps one
// connection per address. Both sides of a connection can send requests: a
// Conn matches responses to its own requests by opaque, and hands requests
// from the peer to a Handler.
//
// # Serving
//
// Every request runs in its own goroutine, bounded by
// ServerOptions.MaxConcurrentRequests, so a slow handler (a send waiting
// for fsync) never holds up other requests on the same connection. When the
// bound is reached the request is answered at once with SYSTEM_BUSY, as a
// Java broker whose thread pool queue is full does.
//
// A handler returns the response, or nil to answer later through
// Conn.WriteResponse (long polling). Responses are encoded in the request's
// serialize type; answers to oneway requests are dropped. Unknown codes get
// REQUEST_CODE_NOT_SUPPORTED, a panicking handler SYSTEM_ERROR with the panic
// text. A broken frame closes that one connection.
//
// # Writing
//
// Each connection has one writer goroutine. It takes every queued frame at
// once, encodes their headers into one reused buffer and writes headers,
// Body and BodyParts with a single writev (net.Buffers), so bodies are never
// copied. Command.Release runs after the frame is written, or when it is
// dropped because the connection died.
//
// # Lifecycle
//
// Server.Start and NewClient start goroutines that Server.Close and
// Client.Close stop and wait for: the accept loop, a reader and a writer per
// connection, and one goroutine per request being served or callback being
// run. Handlers must return once their context (the connection's) is done.
package remoting
