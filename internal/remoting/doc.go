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
// Frames are read into pooled buffers. A request's buffer is reused once
// nothing can refer to it: at once if it has no body (decoding copies every
// string), else once its response has been written. A handler that returns
// a response must therefore not keep req.Body (see Handler); one that
// returns nil keeps the whole request, and responses handed to callers are
// never reused.
//
// Frames are read into buffers that grow as their bytes arrive: a frame
// is checked (length, header length) before anything is allocated, and a
// peer that announces 16 MiB and sends 8 bytes costs one 16 KiB step.
//
// # Limits
//
// ServerOptions.Limits bound what peers can make a server hold: an idle
// deadline that covers each whole frame (a slowloris is closed), a
// connection limit (new connections beyond it are closed at once), and
// flow control per connection: while a connection's queued frames exceed
// the high-water mark, or too many of its requests are being handled, its
// reader stops until the queue is down to the low-water mark; a queue past
// MaxQueuedBytes, or past its mark while all queues together exceed
// MaxTotalQueuedBytes, closes its connection. Goroutines started for a
// connection or a callback run under recover(): a panic is logged and
// closes that connection, never the process.
//
// # Writing
//
// Each connection has one writer goroutine. It takes every queued frame at
// once, encodes their headers into one pooled buffer and writes headers,
// Body and BodyParts with a single writev (net.Buffers), so bodies are never
// copied. Command.Release runs after the frame is written, or when it is
// dropped because the connection died.
//
// # Lifecycle
//
// Server.Start and NewClient start goroutines that Server.Close and
// Client.Close stop and wait for: the accept loop, a reader and a writer per
// connection, and one goroutine per request being served or callback being
// run (workers that outlive a job and take the next one, so that their
// grown stacks are reused). Handlers must return once their context (the
// connection's) is done.
//
// # Calls
//
// A Conn matches responses to its calls by opaque. An async call ends
// early when its context is done, watched with one context.AfterFunc per
// distinct context in use on the connection rather than one per call, or
// when its deadline passes: Client applies RequestTimeout to a context
// without a deadline through one timer per connection, armed for the
// earliest deadline, instead of a context and a timer per call. Callbacks
// never run on the reader.
package remoting
