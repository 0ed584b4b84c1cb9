// Package admintest runs a name server and brokers registered with it, all in the test's
// process, for the tests of the admin client and of mqadmin: Start opens a name server on
// 127.0.0.1:0 and brokers on free loopback ports that they advertise (so routes, cluster info and
// offset message ids point at them), and the helpers create topics, send messages, commit
// offsets and wait for the store's dispatch and index, speaking raw frames through brokertest.
package admintest
