package protocol

// The ext field names this package knows, each spelled once: every field of a typed header
// (header_*.go), the fields Java adds outside its header classes, and ACL's credentials. A
// decoded ext field with one of these names carries its fieldID, which is how a typed header
// finds its fields without comparing strings, and the name is a constant rather than a copy.

// Ext field names that code outside this package reads or writes by name.
const (
	// ExtAccessKey, ExtSignature and ExtSecurityToken are the ACL credentials any request may
	// carry (Java SessionCredentials).
	ExtAccessKey     = "AccessKey"
	ExtSignature     = "Signature"
	ExtSecurityToken = "SecurityToken"
	// ExtUniqueKeyQuery marks a QUERY_MESSAGE by unique key (MixAll.UNIQUE_MSG_QUERY_FLAG);
	// Java leaves it out of the signed content.
	ExtUniqueKeyQuery = "_UNIQUE_KEY_QUERY"
	// ExtTopic, ExtGroup and ExtConsumerGroup are what ACL reads a request's resources from
	// (Java PlainAccessValidator), with ExtSendTopicV2, the topic of SEND_MESSAGE_V2.
	ExtTopic         = "topic"
	ExtGroup         = "group"
	ExtConsumerGroup = "consumerGroup"
	ExtSendTopicV2   = "b"
)

// fieldID numbers a known ext field name; 0 is any other name.
type fieldID uint8

const (
	fUnknown fieldID = iota
	// SEND_MESSAGE_V2's one-letter names.
	fA
	fB
	fC
	fD
	fE
	fF
	fG
	fH
	fI
	fJ
	fK
	fL
	fM
	fN
	// Everything else, in alphabetical order.
	fAccessKey
	fAcceptStandardJSONOnly
	fAddTopicCount
	fAttributes
	fBatch
	fBatchUniqID
	fBeginTimestamp
	fBname
	fBodyCrc32
	fBornTimestamp
	fBoundaryType
	fBrokerAddr
	fBrokerID
	fBrokerName
	fChanged
	fCleanOffset
	fClientAddr
	fClientID
	fClientIDUpper
	fCluster
	fClusterName
	fCommitLogOffset
	fCommitOffset
	fCommitOrRollback
	fCommitted
	fCompressed
	fConsumerGroup
	fDefaultTopic
	fDefaultTopicQueueNums
	fDelayLevel
	fEnableActingMaster
	fEndTimestamp
	fExpressionType
	fFlag
	fForbiddenType
	fForce
	fFromTransactionCheck
	fGroup
	fGroupName
	fGroupSysFlag
	fHaServerAddr
	fHeartbeatTimeoutMillis
	fIndexLastUpdatePhyoffset
	fIndexLastUpdateTimestamp
	fIsForce
	fIsOrder
	fJstackEnable
	fKey
	fMasterAddr
	fMaxMsgBytes
	fMaxMsgNums
	fMaxNum
	fMaxOffset
	fMaxReconsumeTimes
	fMinOffset
	fMsgID
	fMsgRegion
	fNamespace
	fNextBeginOffset
	fOffset
	fOffsetDelta
	fOffsetMsgID
	fOrder
	fOriginMsgID
	fOriginTopic
	fPerm
	fProducerGroup
	fProperties
	fQueueID
	fQueueOffset
	fReadQueueNums
	fRecallHandle
	fReconsumeTimes
	fRemoveOffset
	fSecurityToken
	fSetZeroIfNotFound
	fSignature
	fStatsKey
	fStatsName
	fSubVersion
	fSubscription
	fSuggestWhichBrokerID
	fSuspendTimeoutMillis
	fSysFlag
	fTimestamp
	fTopic
	fTopicFilterType
	fTopicList
	fTopicSysFlag
	fTraceOn
	fTranStateTableOffset
	fTransactionID
	fUniqueKeyQuery
	fUnitMode
	fValue
	fVersion
	fWipeTopicCount
	fWriteQueueNums
	fZoneName

	numFieldIDs
)

// fieldNames spells each fieldID.
var fieldNames = [numFieldIDs]string{
	fA: "a", fB: ExtSendTopicV2, fC: "c", fD: "d", fE: "e", fF: "f", fG: "g", fH: "h", fI: "i",
	fJ: "j", fK: "k", fL: "l", fM: "m", fN: "n",

	fAccessKey:                ExtAccessKey,
	fAcceptStandardJSONOnly:   "acceptStandardJsonOnly",
	fAddTopicCount:            "addTopicCount",
	fAttributes:               "attributes",
	fBatch:                    "batch",
	fBatchUniqID:              "batchUniqId",
	fBeginTimestamp:           "beginTimestamp",
	fBname:                    "bname",
	fBodyCrc32:                "bodyCrc32",
	fBornTimestamp:            "bornTimestamp",
	fBoundaryType:             "boundaryType",
	fBrokerAddr:               "brokerAddr",
	fBrokerID:                 "brokerId",
	fBrokerName:               "brokerName",
	fChanged:                  "changed",
	fCleanOffset:              "cleanOffset",
	fClientAddr:               "clientAddr",
	fClientID:                 "clientId",
	fClientIDUpper:            "clientID",
	fCluster:                  "cluster",
	fClusterName:              "clusterName",
	fCommitLogOffset:          "commitLogOffset",
	fCommitOffset:             "commitOffset",
	fCommitOrRollback:         "commitOrRollback",
	fCommitted:                "committed",
	fCompressed:               "compressed",
	fConsumerGroup:            ExtConsumerGroup,
	fDefaultTopic:             "defaultTopic",
	fDefaultTopicQueueNums:    "defaultTopicQueueNums",
	fDelayLevel:               "delayLevel",
	fEnableActingMaster:       "enableActingMaster",
	fEndTimestamp:             "endTimestamp",
	fExpressionType:           "expressionType",
	fFlag:                     "flag",
	fForbiddenType:            "forbiddenType",
	fForce:                    "force",
	fFromTransactionCheck:     "fromTransactionCheck",
	fGroup:                    ExtGroup,
	fGroupName:                "groupName",
	fGroupSysFlag:             "groupSysFlag",
	fHaServerAddr:             "haServerAddr",
	fHeartbeatTimeoutMillis:   "heartbeatTimeoutMillis",
	fIndexLastUpdatePhyoffset: "indexLastUpdatePhyoffset",
	fIndexLastUpdateTimestamp: "indexLastUpdateTimestamp",
	fIsForce:                  "isForce",
	fIsOrder:                  "isOrder",
	fJstackEnable:             "jstackEnable",
	fKey:                      "key",
	fMasterAddr:               "masterAddr",
	fMaxMsgBytes:              "maxMsgBytes",
	fMaxMsgNums:               "maxMsgNums",
	fMaxNum:                   "maxNum",
	fMaxOffset:                "maxOffset",
	fMaxReconsumeTimes:        "maxReconsumeTimes",
	fMinOffset:                "minOffset",
	fMsgID:                    "msgId",
	fMsgRegion:                "MSG_REGION",
	fNamespace:                "namespace",
	fNextBeginOffset:          "nextBeginOffset",
	fOffset:                   "offset",
	fOffsetDelta:              "offsetDelta",
	fOffsetMsgID:              "offsetMsgId",
	fOrder:                    "order",
	fOriginMsgID:              "originMsgId",
	fOriginTopic:              "originTopic",
	fPerm:                     "perm",
	fProducerGroup:            "producerGroup",
	fProperties:               "properties",
	fQueueID:                  "queueId",
	fQueueOffset:              "queueOffset",
	fReadQueueNums:            "readQueueNums",
	fRecallHandle:             "recallHandle",
	fReconsumeTimes:           "reconsumeTimes",
	fRemoveOffset:             "removeOffset",
	fSecurityToken:            ExtSecurityToken,
	fSetZeroIfNotFound:        "setZeroIfNotFound",
	fSignature:                ExtSignature,
	fStatsKey:                 "statsKey",
	fStatsName:                "statsName",
	fSubVersion:               "subVersion",
	fSubscription:             "subscription",
	fSuggestWhichBrokerID:     "suggestWhichBrokerId",
	fSuspendTimeoutMillis:     "suspendTimeoutMillis",
	fSysFlag:                  "sysFlag",
	fTimestamp:                "timestamp",
	fTopic:                    ExtTopic,
	fTopicFilterType:          "topicFilterType",
	fTopicList:                "topicList",
	fTopicSysFlag:             "topicSysFlag",
	fTraceOn:                  "TRACE_ON",
	fTranStateTableOffset:     "tranStateTableOffset",
	fTransactionID:            "transactionId",
	fUniqueKeyQuery:           ExtUniqueKeyQuery,
	fUnitMode:                 "unitMode",
	fValue:                    "value",
	fVersion:                  "version",
	fWipeTopicCount:           "wipeTopicCount",
	fWriteQueueNums:           "writeQueueNums",
	fZoneName:                 "__ZONE_NAME",
}

// String returns the field's wire name.
func (id fieldID) String() string { return fieldNames[id] }

// fieldSlots is the size of the open-addressing table that finds a name's fieldID; a power of
// two, about four times the number of names, so that a probe rarely goes past its first slot.
const fieldSlots = 512

// fieldTable finds a fieldID by the hash of its name. It is built once and only read.
var fieldTable = buildFieldTable()

func buildFieldTable() *[fieldSlots]fieldID {
	var t [fieldSlots]fieldID
	for id := fA; id < numFieldIDs; id++ {
		i := nameHash(fieldNames[id])
		for t[i] != fUnknown {
			i = (i + 1) & (fieldSlots - 1)
		}
		t[i] = id
	}
	return &t
}

// nameHash is FNV-1a of a name, folded to a slot of fieldTable.
func nameHash[T string | []byte](name T) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h ^= uint32(name[i])
		h *= 16777619
	}
	return (h ^ h>>16) & (fieldSlots - 1)
}

// lookupField returns the fieldID of name, or fUnknown.
func lookupField[T string | []byte](name T) fieldID {
	for i := nameHash(name); ; i = (i + 1) & (fieldSlots - 1) {
		id := fieldTable[i]
		if id == fUnknown || fieldNames[id] == string(name) {
			return id
		}
	}
}

// lowerLetters holds the one-letter names; a single-letter name that is not a field of
// SEND_MESSAGE_V2 is still a substring of it rather than a copy.
const lowerLetters = "abcdefghijklmnopqrstuvwxyz"

// knownExtKey returns the constant spelling of a name and its fieldID, if it has either.
func knownExtKey(b []byte) (text, fieldID, bool) {
	if id := lookupField(b); id != fUnknown {
		return text{lit: fieldNames[id]}, id, true
	}
	if len(b) == 1 && b[0] >= 'a' && b[0] <= 'z' {
		i := b[0] - 'a'
		return text{lit: lowerLetters[i : i+1]}, fUnknown, true
	}
	return text{}, fUnknown, false
}
