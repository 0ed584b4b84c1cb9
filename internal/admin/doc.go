// Package admin is the client behind mqadmin, and behind mqbench's route, topic and offset calls:
// it speaks RocketMQ's remoting protocol to name servers and brokers and returns decoded answers,
// leaving their presentation to the caller.
//
// Three layers, one per file group:
//
//   - client.go: one request to one address (invoke), a request to the name servers in turn
//     until one answers (invokeNamesrv), and ServerError, which keeps a failed answer's response
//     code and remark so that callers can print them the way Java's tools do.
//   - namesrv.go, broker.go and offset.go: one method per request code (GET_BROKER_CLUSTER_INFO,
//     GET_TOPIC_STATS_INFO, QUERY_MESSAGE, ...), decoding the body with pkg/protocol/body or
//     pkg/protocol/message.
//   - topic.go, consumer.go, message.go: what Java's DefaultMQAdminExt does across servers: find
//     the brokers of a topic or cluster through the name server, ask each of them (in parallel),
//     and merge the answers. A broker that fails does not hide the others' answers: these methods
//     return what they gathered together with the joined errors.
//
// The package holds no goroutine beyond a call: every fan-out waits for its workers before it
// returns. Close releases the connections.
package admin
