// Package message is the RocketMQ message record as stored in the CommitLog and
// returned by PULL_MESSAGE, plus the small codecs around it: the properties
// string, offset and unique message ids, SEND_BATCH_MESSAGE bodies and Java's
// String.hashCode (used for tags codes and index keys).
//
// Record layout (V1 magic, IPv4 hosts; all integers big-endian):
//
//	off  size  field
//	  0     4  totalSize            whole record, this field included
//	  4     4  magicCode            0xDAA320A7 (V1), 0xDAA320AB (V2), 0xCBD43194 (BLANK)
//	  8     4  bodyCRC              CRC32-IEEE(body) & 0x7FFFFFFF
//	 12     4  queueId
//	 16     4  flag
//	 20     8  queueOffset
//	 28     8  physicalOffset       CommitLog offset of this record
//	 36     4  sysFlag              see SysFlag* constants
//	 40     8  bornTimestamp        ms
//	 48   8|20 bornHost             IPv4(4)+port int32, or IPv6(16)+port when BORNHOST_V6
//	  .     8  storeTimestamp       ms
//	  .   8|20 storeHost            likewise with STOREHOST_V6
//	  .     4  reconsumeTimes
//	  .     8  preparedTransactionOffset
//	  .   4+n  bodyLen, body
//	  . 1+n|2+n topicLen, topic     1-byte length for V1, 2-byte for V2
//	  .   2+n  propertiesLen (int16), properties  key\x01value\x02...
//
// totalSize = 91 + len(body) + len(topic) + len(properties) for V1 with IPv4 hosts.
//
// Encoding writes straight into a caller-provided buffer (a mapped CommitLog
// segment) so a message is encoded once. Decoding offers a zero-copy View and an
// Iterator over concatenated records, and Decode for a full copy with a
// properties map. The package uses the standard library only.
package message
