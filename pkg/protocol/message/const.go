package message

import "github.com/rocketgo/rocketgo/pkg/protocol/systopic"

// Magic codes (the second int32 of a record).
const (
	MagicV1    uint32 = 0xDAA320A7 // -626843481 as a Java int
	MagicV2    uint32 = 0xDAA320AB // -626843477; 2-byte topic length
	MagicBlank uint32 = 0xCBD43194 // -875286124; end-of-segment filler in the CommitLog
)

// Record size limits.
const (
	// MaxTopicLen is the longest topic a V1 record can carry (its length is a signed byte).
	MaxTopicLen = 127
	// MaxPropertiesLen is the longest properties string (its length is an int16).
	MaxPropertiesLen = 32767
	// BlankMinLen is the smallest tail a CommitLog segment must keep free for a BLANK
	// marker (totalSize + magic), Java's END_FILE_MIN_BLANK_LENGTH.
	BlankMinLen = 8
)

// SysFlag bits (Java MessageSysFlag).
const (
	SysFlagCompressed        int32 = 0x1
	SysFlagMultiTags         int32 = 0x1 << 1
	SysFlagTransactionNot    int32 = 0
	SysFlagTransactionPrep   int32 = 0x1 << 2
	SysFlagTransactionCommit int32 = 0x2 << 2
	SysFlagTransactionRoll   int32 = 0x3 << 2
	SysFlagBornHostV6        int32 = 0x1 << 4
	SysFlagStoreHostV6       int32 = 0x1 << 5
	SysFlagNeedUnwrap        int32 = 0x1 << 6
	SysFlagInnerBatch        int32 = 0x1 << 7

	// SysFlagTransactionMask selects the transaction type bits (2-3).
	SysFlagTransactionMask int32 = 0x3 << 2
	// SysFlagCompressionMask selects the 5.x compression type bits (8-10).
	SysFlagCompressionMask int32 = 0x7 << 8
	SysFlagCompressionLZ4  int32 = 0x1 << 8
	SysFlagCompressionZSTD int32 = 0x2 << 8
	SysFlagCompressionZLIB int32 = 0x3 << 8
)

// TransactionType returns the transaction bits of sysFlag: one of
// SysFlagTransactionNot, Prep, Commit or Roll.
func TransactionType(sysFlag int32) int32 { return sysFlag & SysFlagTransactionMask }

// SetTransactionType replaces the transaction bits of sysFlag with t.
func SetTransactionType(sysFlag, t int32) int32 {
	return sysFlag&^SysFlagTransactionMask | t&SysFlagTransactionMask
}

// Property keys (Java MessageConst).
const (
	PropertyKeys                     = "KEYS"
	PropertyTags                     = "TAGS"
	PropertyWaitStoreMsgOK           = "WAIT"
	PropertyDelayTimeLevel           = "DELAY"
	PropertyRetryTopic               = "RETRY_TOPIC"
	PropertyRealTopic                = "REAL_TOPIC"
	PropertyRealQueueID              = "REAL_QID"
	PropertyTransactionPrepared      = "TRAN_MSG"
	PropertyProducerGroup            = "PGROUP"
	PropertyMinOffset                = "MIN_OFFSET"
	PropertyMaxOffset                = "MAX_OFFSET"
	PropertyBuyerID                  = "BUYER_ID"
	PropertyOriginMessageID          = "ORIGIN_MESSAGE_ID"
	PropertyTransferFlag             = "TRANSFER_FLAG"
	PropertyCorrectionFlag           = "CORRECTION_FLAG"
	PropertyMQ2Flag                  = "MQ2_FLAG"
	PropertyReconsumeTime            = "RECONSUME_TIME"
	PropertyMsgRegion                = "MSG_REGION"
	PropertyTraceSwitch              = "TRACE_ON"
	PropertyUniqClientMessageID      = "UNIQ_KEY"
	PropertyMaxReconsumeTimes        = "MAX_RECONSUME_TIMES"
	PropertyConsumeStartTimestamp    = "CONSUME_START_TIME"
	PropertyTranPreparedQueueOffset  = "TRAN_PREPARED_QUEUE_OFFSET"
	PropertyTransactionCheckTimes    = "TRANSACTION_CHECK_TIMES"
	PropertyCheckImmunityTimeSeconds = "CHECK_IMMUNITY_TIME_IN_SECONDS"
	PropertyTransactionID            = "__transactionId__"
	PropertyInstanceID               = "INSTANCE_ID"
	PropertyCorrelationID            = "CORRELATION_ID"
	PropertyMessageReplyToClient     = "REPLY_TO_CLIENT"
	PropertyMessageTTL               = "TTL"
	PropertyReplyMessageArriveTime   = "ARRIVE_TIME"
	PropertyPushReplyTime            = "PUSH_REPLY_TIME"
	PropertyCluster                  = "CLUSTER"
	PropertyMessageType              = "MSG_TYPE"
	PropertyTimerDeliverMS           = "TIMER_DELIVER_MS"
	PropertyTimerDelaySec            = "TIMER_DELAY_SEC"
	PropertyTimerDelayMS             = "TIMER_DELAY_MS"
	PropertyTimerOutMS               = "TIMER_OUT_MS"
	PropertyTimerEnqueueMS           = "TIMER_ENQUEUE_MS"
	PropertyTimerDequeueMS           = "TIMER_DEQUEUE_MS"
	PropertyTimerRollTimes           = "TIMER_ROLL_TIMES"
	PropertyTimerDelUniqKey          = "TIMER_DEL_UNIQKEY"
	PropertyShardingKey              = "__SHARDINGKEY"
	PropertyInnerNum                 = "INNER_NUM"
	PropertyDLQOriginTopic           = "DLQ_ORIGIN_TOPIC"
	PropertyDLQOriginMessageID       = "DLQ_ORIGIN_MESSAGE_ID"

	// KeySeparator separates the elements of the KEYS property.
	KeySeparator = " "
)

// Topics the store treats specially.
const (
	// ScheduleTopic holds delayed messages; its ConsumeQueue tagsCode is the delivery time.
	ScheduleTopic = systopic.Schedule
)
