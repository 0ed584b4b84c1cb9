package protocol

// Ext field names that decoding turns into constants instead of copying
// them: every field of the requests and responses this server handles in
// volume, so that a decoded header allocates no key.

// lowerLetters holds the one-letter names of SEND_MESSAGE_V2 (a..n) and
// their neighbours; a name is a substring of it.
const lowerLetters = "abcdefghijklmnopqrstuvwxyz"

// wellKnownExtKeys maps each longer well-known name to itself. It is only
// read.
var wellKnownExtKeys = internTable(
	// SEND_MESSAGE and its response.
	"producerGroup", "topic", "defaultTopic", "defaultTopicQueueNums", "queueId", "sysFlag",
	"bornTimestamp", "flag", "properties", "reconsumeTimes", "unitMode", "batch",
	"maxReconsumeTimes", "bname", "brokerName", "msgId", "queueOffset", "transactionId",
	"batchUniqId", "MSG_REGION", "TRACE_ON",
	// END_TRANSACTION, CHECK_TRANSACTION_STATE.
	"tranStateTableOffset", "commitLogOffset", "commitOrRollback", "fromTransactionCheck",
	"offsetMsgId",
	// PULL_MESSAGE and its response, offsets.
	"consumerGroup", "maxMsgNums", "commitOffset", "suspendTimeoutMillis", "subscription",
	"subVersion", "expressionType", "maxMsgBytes", "suggestWhichBrokerId", "nextBeginOffset",
	"minOffset", "maxOffset", "setZeroIfNotFound", "offset", "timestamp", "committed",
	"boundaryType",
	// Clients, send-back, queries.
	"clientID", "clientId", "group", "delayLevel", "originMsgId", "originTopic", "key", "maxNum",
	"beginTimestamp", "endTimestamp", "indexLastUpdateTimestamp", "indexLastUpdatePhyoffset",
	// Name server and broker registration.
	"clusterName", "brokerAddr", "haServerAddr", "brokerId", "masterAddr",
	"heartbeatTimeoutMillis", "compressed", "bodyCrc32", "changed", "namespace", "value",
	// ACL.
	"AccessKey", "Signature",
)

func internTable(names ...string) map[string]string {
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[n] = n
	}
	return m
}

// knownExtKey returns the constant for a well-known ext field name.
func knownExtKey(b []byte) (text, bool) {
	if len(b) == 1 && b[0] >= 'a' && b[0] <= 'z' {
		i := b[0] - 'a'
		return text{lit: lowerLetters[i : i+1]}, true
	}
	if k, ok := wellKnownExtKeys[string(b)]; ok {
		return text{lit: k}, true
	}
	return text{}, false
}
