package protocol

// GetConsumerListByGroupRequestHeader is the header of GET_CONSUMER_LIST_BY_GROUP.
type GetConsumerListByGroupRequestHeader struct {
	ConsumerGroup string
}

func (h *GetConsumerListByGroupRequestHeader) fields(c *fieldCodec) {
	c.str(fConsumerGroup, &h.ConsumerGroup)
}

// Decode implements Header.
func (h *GetConsumerListByGroupRequestHeader) Decode(ext Ext) error {
	*h = GetConsumerListByGroupRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetConsumerListByGroupRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// UnregisterClientRequestHeader is the header of UNREGISTER_CLIENT (Java
// UnregisterClientRequestHeader; the client id is spelled clientID).
type UnregisterClientRequestHeader struct {
	ClientID      string
	ProducerGroup Opt[string]
	ConsumerGroup Opt[string]
}

func (h *UnregisterClientRequestHeader) fields(c *fieldCodec) {
	c.str(fClientIDUpper, &h.ClientID)
	c.optStr(fProducerGroup, &h.ProducerGroup)
	c.optStr(fConsumerGroup, &h.ConsumerGroup)
}

// Decode implements Header.
func (h *UnregisterClientRequestHeader) Decode(ext Ext) error {
	*h = UnregisterClientRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h UnregisterClientRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// NotifyConsumerIdsChangedRequestHeader is the header of NOTIFY_CONSUMER_IDS_CHANGED, which the
// broker sends a consumer.
type NotifyConsumerIdsChangedRequestHeader struct {
	ConsumerGroup string
}

func (h *NotifyConsumerIdsChangedRequestHeader) fields(c *fieldCodec) {
	c.str(fConsumerGroup, &h.ConsumerGroup)
}

// Decode implements Header.
func (h *NotifyConsumerIdsChangedRequestHeader) Decode(ext Ext) error {
	*h = NotifyConsumerIdsChangedRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h NotifyConsumerIdsChangedRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetConsumerRunningInfoRequestHeader is the header of GET_CONSUMER_RUNNING_INFO, from an admin
// tool to the broker and from the broker to the client.
type GetConsumerRunningInfoRequestHeader struct {
	ConsumerGroup string
	ClientID      string
	JstackEnable  Opt[bool]
}

func (h *GetConsumerRunningInfoRequestHeader) fields(c *fieldCodec) {
	c.str(fConsumerGroup, &h.ConsumerGroup)
	c.str(fClientID, &h.ClientID)
	c.optBool(fJstackEnable, &h.JstackEnable)
}

// Decode implements Header.
func (h *GetConsumerRunningInfoRequestHeader) Decode(ext Ext) error {
	*h = GetConsumerRunningInfoRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetConsumerRunningInfoRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// ConsumeMessageDirectlyResultRequestHeader is the header of CONSUME_MESSAGE_DIRECTLY, from an
// admin tool to the broker and from the broker to the client (Java
// ConsumeMessageDirectlyResultRequestHeader).
type ConsumeMessageDirectlyResultRequestHeader struct {
	ConsumerGroup string
	ClientID      Opt[string]
	MsgID         Opt[string]
	BrokerName    Opt[string]
	// Topic, TopicSysFlag and GroupSysFlag are RocketMQ 5's.
	Topic        Opt[string]
	TopicSysFlag Opt[int32]
	GroupSysFlag Opt[int32]
}

func (h *ConsumeMessageDirectlyResultRequestHeader) fields(c *fieldCodec) {
	c.str(fConsumerGroup, &h.ConsumerGroup)
	c.optStr(fClientID, &h.ClientID)
	c.optStr(fMsgID, &h.MsgID)
	c.optStr(fBrokerName, &h.BrokerName)
	c.optStr(fTopic, &h.Topic)
	c.optI32(fTopicSysFlag, &h.TopicSysFlag)
	c.optI32(fGroupSysFlag, &h.GroupSysFlag)
}

// Decode implements Header.
func (h *ConsumeMessageDirectlyResultRequestHeader) Decode(ext Ext) error {
	*h = ConsumeMessageDirectlyResultRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h ConsumeMessageDirectlyResultRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetConsumerConnectionListRequestHeader is the header of GET_CONSUMER_CONNECTION_LIST.
type GetConsumerConnectionListRequestHeader struct {
	ConsumerGroup string
}

func (h *GetConsumerConnectionListRequestHeader) fields(c *fieldCodec) {
	c.str(fConsumerGroup, &h.ConsumerGroup)
}

// Decode implements Header.
func (h *GetConsumerConnectionListRequestHeader) Decode(ext Ext) error {
	*h = GetConsumerConnectionListRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetConsumerConnectionListRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// LockBatchMQRequestHeader is the header of LOCK_BATCH_MQ, whose request is its body; RocketMQ
// 5 adds the broker name.
type LockBatchMQRequestHeader struct {
	// RocketMQ 5's bname (RpcRequestHeader): the broker the client addresses.
	BrokerName Opt[string]
}

func (h *LockBatchMQRequestHeader) fields(c *fieldCodec) {
	c.optStr(fBname, &h.BrokerName)
}

// Decode implements Header.
func (h *LockBatchMQRequestHeader) Decode(ext Ext) error {
	*h = LockBatchMQRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h LockBatchMQRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// UnlockBatchMQRequestHeader is the header of UNLOCK_BATCH_MQ, whose request is its body;
// RocketMQ 5 adds the broker name.
type UnlockBatchMQRequestHeader struct {
	// RocketMQ 5's bname (RpcRequestHeader): the broker the client addresses.
	BrokerName Opt[string]
}

func (h *UnlockBatchMQRequestHeader) fields(c *fieldCodec) {
	c.optStr(fBname, &h.BrokerName)
}

// Decode implements Header.
func (h *UnlockBatchMQRequestHeader) Decode(ext Ext) error {
	*h = UnlockBatchMQRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h UnlockBatchMQRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// ResetOffsetRequestHeader is the header of INVOKE_BROKER_TO_RESET_OFFSET, from an admin tool,
// and of RESET_CONSUMER_CLIENT_OFFSET, from the broker to each consumer (Java
// ResetOffsetRequestHeader).
type ResetOffsetRequestHeader struct {
	Topic string
	Group string
	// QueueID and Offset are RocketMQ 5's reset of one queue to an offset.
	QueueID   Opt[int32]
	Offset    Opt[int64]
	Timestamp int64
	IsForce   bool
}

func (h *ResetOffsetRequestHeader) fields(c *fieldCodec) {
	c.str(fTopic, &h.Topic)
	c.str(fGroup, &h.Group)
	c.optI32(fQueueID, &h.QueueID)
	c.optI64(fOffset, &h.Offset)
	c.i64(fTimestamp, &h.Timestamp)
	c.boolean(fIsForce, &h.IsForce)
}

// Decode implements Header.
func (h *ResetOffsetRequestHeader) Decode(ext Ext) error {
	*h = ResetOffsetRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h ResetOffsetRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetConsumerStatusRequestHeader is the header of INVOKE_BROKER_TO_GET_CONSUMER_STATUS, from an
// admin tool, and of GET_CONSUMER_STATUS_FROM_CLIENT, from the broker to each consumer.
type GetConsumerStatusRequestHeader struct {
	Topic      string
	Group      string
	ClientAddr Opt[string]
}

func (h *GetConsumerStatusRequestHeader) fields(c *fieldCodec) {
	c.str(fTopic, &h.Topic)
	c.str(fGroup, &h.Group)
	c.optStr(fClientAddr, &h.ClientAddr)
}

// Decode implements Header.
func (h *GetConsumerStatusRequestHeader) Decode(ext Ext) error {
	*h = GetConsumerStatusRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetConsumerStatusRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }
