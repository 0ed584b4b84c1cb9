// Package remotingtest helps test remoting servers: StartServer runs one on
// 127.0.0.1:0 for the length of a test, and RawConn speaks the frame
// protocol byte by byte, for black-box protocol tests that need to send what
// a well-behaved client never would.
package remotingtest
