package protocol

// SendMessageRequestHeader is the header of SEND_MESSAGE (Java SendMessageRequestHeader).
// SEND_MESSAGE_V2 and SEND_BATCH_MESSAGE carry the same fields under one-letter names: see
// SendMessageRequestHeaderV2 and DecodeSend.
type SendMessageRequestHeader struct {
	ProducerGroup         string
	Topic                 string
	DefaultTopic          string
	DefaultTopicQueueNums int32
	QueueID               int32
	SysFlag               int32
	BornTimestamp         int64
	Flag                  int32
	// Properties are the message properties, name\x01value\x02 pairs.
	Properties        Opt[string]
	ReconsumeTimes    Opt[int32]
	UnitMode          Opt[bool]
	Batch             Opt[bool]
	MaxReconsumeTimes Opt[int32]
	// RocketMQ 5's bname (RpcRequestHeader): the broker the client addresses.
	BrokerName Opt[string]
}

func (h *SendMessageRequestHeader) fields(c *fieldCodec) {
	c.str(fProducerGroup, &h.ProducerGroup)
	c.str(fTopic, &h.Topic)
	c.str(fDefaultTopic, &h.DefaultTopic)
	c.i32(fDefaultTopicQueueNums, &h.DefaultTopicQueueNums)
	c.i32(fQueueID, &h.QueueID)
	c.i32(fSysFlag, &h.SysFlag)
	c.i64(fBornTimestamp, &h.BornTimestamp)
	c.i32(fFlag, &h.Flag)
	c.optStr(fProperties, &h.Properties)
	c.optI32(fReconsumeTimes, &h.ReconsumeTimes)
	c.optBool(fUnitMode, &h.UnitMode)
	c.optBool(fBatch, &h.Batch)
	c.optI32(fMaxReconsumeTimes, &h.MaxReconsumeTimes)
	c.optStr(fBname, &h.BrokerName)
}

// Decode implements Header.
func (h *SendMessageRequestHeader) Decode(ext Ext) error {
	*h = SendMessageRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h SendMessageRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// SendMessageRequestHeaderV2 is SendMessageRequestHeader under the one-letter names of
// SEND_MESSAGE_V2 and SEND_BATCH_MESSAGE (Java SendMessageRequestHeaderV2): producerGroup is a,
// topic b, ... maxReconsumeTimes l, batch m and bname n. Convert between the two forms with a
// type conversion.
type SendMessageRequestHeaderV2 SendMessageRequestHeader

func (h *SendMessageRequestHeaderV2) fields(c *fieldCodec) {
	c.str(fA, &h.ProducerGroup)
	c.str(fB, &h.Topic)
	c.str(fC, &h.DefaultTopic)
	c.i32(fD, &h.DefaultTopicQueueNums)
	c.i32(fE, &h.QueueID)
	c.i32(fF, &h.SysFlag)
	c.i64(fG, &h.BornTimestamp)
	c.i32(fH, &h.Flag)
	c.optStr(fI, &h.Properties)
	c.optI32(fJ, &h.ReconsumeTimes)
	c.optBool(fK, &h.UnitMode)
	c.optI32(fL, &h.MaxReconsumeTimes)
	c.optBool(fM, &h.Batch)
	c.optStr(fN, &h.BrokerName)
}

// Decode implements Header.
func (h *SendMessageRequestHeaderV2) Decode(ext Ext) error {
	*h = SendMessageRequestHeaderV2{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h SendMessageRequestHeaderV2) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// SendMessageResponseHeader answers a send (Java SendMessageResponseHeader). MsgID holds the
// offset message id, or a comma-separated list of them for a batch.
type SendMessageResponseHeader struct {
	MsgID         string
	QueueID       int32
	QueueOffset   int64
	TransactionID Opt[string]
	BatchUniqID   Opt[string]
	// MsgRegion and TraceOn are added by Java's broker outside the header class (MSG_REGION, TRACE_ON).
	MsgRegion Opt[string]
	TraceOn   Opt[bool]
	// RecallHandle (RocketMQ 5.3.1+) answers a send that became a timer message: the handle
	// RECALL_MESSAGE takes back.
	RecallHandle Opt[string]
}

func (h *SendMessageResponseHeader) fields(c *fieldCodec) {
	c.str(fMsgID, &h.MsgID)
	c.i32(fQueueID, &h.QueueID)
	c.i64(fQueueOffset, &h.QueueOffset)
	c.optStr(fTransactionID, &h.TransactionID)
	c.optStr(fBatchUniqID, &h.BatchUniqID)
	c.optStr(fMsgRegion, &h.MsgRegion)
	c.optBool(fTraceOn, &h.TraceOn)
	c.optStr(fRecallHandle, &h.RecallHandle)
}

// Decode implements Header.
func (h *SendMessageResponseHeader) Decode(ext Ext) error {
	*h = SendMessageResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h SendMessageResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// PullMessageRequestHeader is the header of PULL_MESSAGE (Java PullMessageRequestHeader).
type PullMessageRequestHeader struct {
	ConsumerGroup        string
	Topic                string
	QueueID              int32
	QueueOffset          int64
	MaxMsgNums           int32
	SysFlag              int32
	CommitOffset         int64
	SuspendTimeoutMillis int64
	Subscription         Opt[string]
	SubVersion           int64
	ExpressionType       Opt[string]
	// RocketMQ 5.
	MaxMsgBytes Opt[int32]
	// RocketMQ 5's bname (RpcRequestHeader): the broker the client addresses.
	BrokerName Opt[string]
}

func (h *PullMessageRequestHeader) fields(c *fieldCodec) {
	c.str(fConsumerGroup, &h.ConsumerGroup)
	c.str(fTopic, &h.Topic)
	c.i32(fQueueID, &h.QueueID)
	c.i64(fQueueOffset, &h.QueueOffset)
	c.i32(fMaxMsgNums, &h.MaxMsgNums)
	c.i32(fSysFlag, &h.SysFlag)
	c.i64(fCommitOffset, &h.CommitOffset)
	c.i64(fSuspendTimeoutMillis, &h.SuspendTimeoutMillis)
	c.optStr(fSubscription, &h.Subscription)
	c.i64(fSubVersion, &h.SubVersion)
	c.optStr(fExpressionType, &h.ExpressionType)
	c.optI32(fMaxMsgBytes, &h.MaxMsgBytes)
	c.optStr(fBname, &h.BrokerName)
}

// Decode implements Header.
func (h *PullMessageRequestHeader) Decode(ext Ext) error {
	*h = PullMessageRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h PullMessageRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// PullMessageResponseHeader answers PULL_MESSAGE (Java PullMessageResponseHeader).
type PullMessageResponseHeader struct {
	SuggestWhichBrokerID int64
	NextBeginOffset      int64
	MinOffset            int64
	MaxOffset            int64
	// OffsetDelta, TopicSysFlag, GroupSysFlag and ForbiddenType are RocketMQ 5's.
	OffsetDelta   Opt[int64]
	TopicSysFlag  Opt[int32]
	GroupSysFlag  Opt[int32]
	ForbiddenType Opt[int32]
}

func (h *PullMessageResponseHeader) fields(c *fieldCodec) {
	c.i64(fSuggestWhichBrokerID, &h.SuggestWhichBrokerID)
	c.i64(fNextBeginOffset, &h.NextBeginOffset)
	c.i64(fMinOffset, &h.MinOffset)
	c.i64(fMaxOffset, &h.MaxOffset)
	c.optI64(fOffsetDelta, &h.OffsetDelta)
	c.optI32(fTopicSysFlag, &h.TopicSysFlag)
	c.optI32(fGroupSysFlag, &h.GroupSysFlag)
	c.optI32(fForbiddenType, &h.ForbiddenType)
}

// Decode implements Header.
func (h *PullMessageResponseHeader) Decode(ext Ext) error {
	*h = PullMessageResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h PullMessageResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// ConsumerSendMsgBackRequestHeader is the header of CONSUMER_SEND_MSG_BACK (Java
// ConsumerSendMsgBackRequestHeader): Offset is the CommitLog offset of the message sent back.
type ConsumerSendMsgBackRequestHeader struct {
	Offset            int64
	Group             string
	DelayLevel        int32
	OriginMsgID       Opt[string]
	OriginTopic       Opt[string]
	UnitMode          Opt[bool]
	MaxReconsumeTimes Opt[int32]
	// RocketMQ 5's bname (RpcRequestHeader): the broker the client addresses.
	BrokerName Opt[string]
}

func (h *ConsumerSendMsgBackRequestHeader) fields(c *fieldCodec) {
	c.i64(fOffset, &h.Offset)
	c.str(fGroup, &h.Group)
	c.i32(fDelayLevel, &h.DelayLevel)
	c.optStr(fOriginMsgID, &h.OriginMsgID)
	c.optStr(fOriginTopic, &h.OriginTopic)
	c.optBool(fUnitMode, &h.UnitMode)
	c.optI32(fMaxReconsumeTimes, &h.MaxReconsumeTimes)
	c.optStr(fBname, &h.BrokerName)
}

// Decode implements Header.
func (h *ConsumerSendMsgBackRequestHeader) Decode(ext Ext) error {
	*h = ConsumerSendMsgBackRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h ConsumerSendMsgBackRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// EndTransactionRequestHeader is the header of END_TRANSACTION (Java EndTransactionRequestHeader).
type EndTransactionRequestHeader struct {
	// RocketMQ 5.
	Topic                Opt[string]
	ProducerGroup        string
	TranStateTableOffset int64
	CommitLogOffset      int64
	CommitOrRollback     int32
	FromTransactionCheck Opt[bool]
	MsgID                string
	TransactionID        Opt[string]
	// RocketMQ 5's bname (RpcRequestHeader): the broker the client addresses.
	BrokerName Opt[string]
}

func (h *EndTransactionRequestHeader) fields(c *fieldCodec) {
	c.optStr(fTopic, &h.Topic)
	c.str(fProducerGroup, &h.ProducerGroup)
	c.i64(fTranStateTableOffset, &h.TranStateTableOffset)
	c.i64(fCommitLogOffset, &h.CommitLogOffset)
	c.i32(fCommitOrRollback, &h.CommitOrRollback)
	c.optBool(fFromTransactionCheck, &h.FromTransactionCheck)
	c.str(fMsgID, &h.MsgID)
	c.optStr(fTransactionID, &h.TransactionID)
	c.optStr(fBname, &h.BrokerName)
}

// Decode implements Header.
func (h *EndTransactionRequestHeader) Decode(ext Ext) error {
	*h = EndTransactionRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h EndTransactionRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// CheckTransactionStateRequestHeader is the header of CHECK_TRANSACTION_STATE, which the broker
// sends a producer (Java CheckTransactionStateRequestHeader).
type CheckTransactionStateRequestHeader struct {
	// RocketMQ 5.
	Topic                Opt[string]
	TranStateTableOffset int64
	CommitLogOffset      int64
	MsgID                Opt[string]
	TransactionID        Opt[string]
	OffsetMsgID          Opt[string]
	// BrokerName is sent as brokerName; RocketMQ 5's broker sends it as bname.
	BrokerName Opt[string]
}

func (h *CheckTransactionStateRequestHeader) fields(c *fieldCodec) {
	c.optStr(fTopic, &h.Topic)
	c.i64(fTranStateTableOffset, &h.TranStateTableOffset)
	c.i64(fCommitLogOffset, &h.CommitLogOffset)
	c.optStr(fMsgID, &h.MsgID)
	c.optStr(fTransactionID, &h.TransactionID)
	c.optStr(fOffsetMsgID, &h.OffsetMsgID)
	c.optStr(fBrokerName, &h.BrokerName)
}

// Decode implements Header.
func (h *CheckTransactionStateRequestHeader) Decode(ext Ext) error {
	*h = CheckTransactionStateRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h CheckTransactionStateRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// QueryMessageRequestHeader is the header of QUERY_MESSAGE (Java QueryMessageRequestHeader).
type QueryMessageRequestHeader struct {
	Topic          string
	Key            string
	MaxNum         int32
	BeginTimestamp int64
	EndTimestamp   int64
	// UniqueKeyQuery asks for the UNIQ_KEY index; Java adds it outside the header class (_UNIQUE_KEY_QUERY).
	UniqueKeyQuery Opt[bool]
}

func (h *QueryMessageRequestHeader) fields(c *fieldCodec) {
	c.str(fTopic, &h.Topic)
	c.str(fKey, &h.Key)
	c.i32(fMaxNum, &h.MaxNum)
	c.i64(fBeginTimestamp, &h.BeginTimestamp)
	c.i64(fEndTimestamp, &h.EndTimestamp)
	c.optBool(fUniqueKeyQuery, &h.UniqueKeyQuery)
}

// Decode implements Header.
func (h *QueryMessageRequestHeader) Decode(ext Ext) error {
	*h = QueryMessageRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h QueryMessageRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// QueryMessageResponseHeader answers QUERY_MESSAGE (Java QueryMessageResponseHeader).
type QueryMessageResponseHeader struct {
	IndexLastUpdateTimestamp int64
	IndexLastUpdatePhyoffset int64
}

func (h *QueryMessageResponseHeader) fields(c *fieldCodec) {
	c.i64(fIndexLastUpdateTimestamp, &h.IndexLastUpdateTimestamp)
	c.i64(fIndexLastUpdatePhyoffset, &h.IndexLastUpdatePhyoffset)
}

// Decode implements Header.
func (h *QueryMessageResponseHeader) Decode(ext Ext) error {
	*h = QueryMessageResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h QueryMessageResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// ViewMessageRequestHeader is the header of VIEW_MESSAGE_BY_ID (Java ViewMessageRequestHeader):
// Offset is a CommitLog offset.
type ViewMessageRequestHeader struct {
	// RocketMQ 5.
	Topic  Opt[string]
	Offset int64
}

func (h *ViewMessageRequestHeader) fields(c *fieldCodec) {
	c.optStr(fTopic, &h.Topic)
	c.i64(fOffset, &h.Offset)
}

// Decode implements Header.
func (h *ViewMessageRequestHeader) Decode(ext Ext) error {
	*h = ViewMessageRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h ViewMessageRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// DecodeSend decodes a send request's header in the form its code uses: the one-letter names
// of SendMessageRequestHeaderV2 for SEND_MESSAGE_V2 and SEND_BATCH_MESSAGE (a missing field is
// then named by its letter, as the client spelled it), the long names otherwise.
func (h *SendMessageRequestHeader) DecodeSend(code RequestCode, ext Ext) error {
	if code == SendMessageV2 || code == SendBatchMessage {
		return (*SendMessageRequestHeaderV2)(h).Decode(ext)
	}
	return h.Decode(ext)
}
