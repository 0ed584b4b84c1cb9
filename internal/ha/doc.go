// Package ha is classic master/slave replication of the CommitLog, byte-compatible with Apache
// RocketMQ 4.9's HAService: a Java slave can follow a Go master and a Go slave a Java master.
//
// The master runs a Service: it listens on haListenPort and serves one TCP connection per slave.
// A slave reports the end of its CommitLog as an 8-byte offset when it connects, after every batch
// it appended and every haSendHeartbeatInterval; the master sends the CommitLog bytes from that
// offset on (from the start of its newest segment when the slave reports 0) as frames of a 12-byte
// header (masterPhyOffset, bodySize) and at most haTransferBatchSize raw bytes, and an empty frame
// as a heartbeat when it has had nothing to send for haSendHeartbeatInterval. The acknowledged
// offsets feed SYNC_MASTER puts (WaitReplicated).
//
// The slave runs a Client: it connects to the master's HA address (haMasterAddress, or the
// haServerAddr its nameserver registration answers), appends every frame's bytes at exactly the
// offset the frame names (its own dispatcher then builds ConsumeQueues and the index from them),
// drops the connection when an offset does not continue its log or when nothing arrived for
// haHousekeepingInterval, and reconnects.
//
// The package knows the message store only through the MasterLog and SlaveLog interfaces, which
// *store.Store implements; it knows nothing of the broker or the remoting protocol. The wire
// format is drawn in docs/ha.md.
package ha
