package protocol

// QueryConsumerOffsetRequestHeader is the header of QUERY_CONSUMER_OFFSET (Java
// QueryConsumerOffsetRequestHeader).
type QueryConsumerOffsetRequestHeader struct {
	ConsumerGroup string
	Topic         string
	QueueID       int32
	// RocketMQ 5.
	SetZeroIfNotFound Opt[bool]
	// RocketMQ 5's bname (RpcRequestHeader): the broker the client addresses.
	BrokerName Opt[string]
}

func (h *QueryConsumerOffsetRequestHeader) fields(c *fieldCodec) {
	c.str(fConsumerGroup, &h.ConsumerGroup)
	c.str(fTopic, &h.Topic)
	c.i32(fQueueID, &h.QueueID)
	c.optBool(fSetZeroIfNotFound, &h.SetZeroIfNotFound)
	c.optStr(fBname, &h.BrokerName)
}

// Decode implements Header.
func (h *QueryConsumerOffsetRequestHeader) Decode(ext Ext) error {
	*h = QueryConsumerOffsetRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h QueryConsumerOffsetRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// QueryConsumerOffsetResponseHeader answers QUERY_CONSUMER_OFFSET.
type QueryConsumerOffsetResponseHeader struct {
	Offset int64
}

func (h *QueryConsumerOffsetResponseHeader) fields(c *fieldCodec) {
	c.i64(fOffset, &h.Offset)
}

// Decode implements Header.
func (h *QueryConsumerOffsetResponseHeader) Decode(ext Ext) error {
	*h = QueryConsumerOffsetResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h QueryConsumerOffsetResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// UpdateConsumerOffsetRequestHeader is the header of UPDATE_CONSUMER_OFFSET (Java
// UpdateConsumerOffsetRequestHeader).
type UpdateConsumerOffsetRequestHeader struct {
	ConsumerGroup string
	Topic         string
	QueueID       int32
	CommitOffset  int64
	// RocketMQ 5's bname (RpcRequestHeader): the broker the client addresses.
	BrokerName Opt[string]
}

func (h *UpdateConsumerOffsetRequestHeader) fields(c *fieldCodec) {
	c.str(fConsumerGroup, &h.ConsumerGroup)
	c.str(fTopic, &h.Topic)
	c.i32(fQueueID, &h.QueueID)
	c.i64(fCommitOffset, &h.CommitOffset)
	c.optStr(fBname, &h.BrokerName)
}

// Decode implements Header.
func (h *UpdateConsumerOffsetRequestHeader) Decode(ext Ext) error {
	*h = UpdateConsumerOffsetRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h UpdateConsumerOffsetRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetMaxOffsetRequestHeader is the header of GET_MAX_OFFSET (Java GetMaxOffsetRequestHeader).
type GetMaxOffsetRequestHeader struct {
	Topic   string
	QueueID int32
	// RocketMQ 5.
	Committed Opt[bool]
	// RocketMQ 5's bname (RpcRequestHeader): the broker the client addresses.
	BrokerName Opt[string]
}

func (h *GetMaxOffsetRequestHeader) fields(c *fieldCodec) {
	c.str(fTopic, &h.Topic)
	c.i32(fQueueID, &h.QueueID)
	c.optBool(fCommitted, &h.Committed)
	c.optStr(fBname, &h.BrokerName)
}

// Decode implements Header.
func (h *GetMaxOffsetRequestHeader) Decode(ext Ext) error {
	*h = GetMaxOffsetRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetMaxOffsetRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetMaxOffsetResponseHeader answers GET_MAX_OFFSET.
type GetMaxOffsetResponseHeader struct {
	Offset int64
}

func (h *GetMaxOffsetResponseHeader) fields(c *fieldCodec) {
	c.i64(fOffset, &h.Offset)
}

// Decode implements Header.
func (h *GetMaxOffsetResponseHeader) Decode(ext Ext) error {
	*h = GetMaxOffsetResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetMaxOffsetResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetMinOffsetRequestHeader is the header of GET_MIN_OFFSET (Java GetMinOffsetRequestHeader).
type GetMinOffsetRequestHeader struct {
	Topic   string
	QueueID int32
	// RocketMQ 5's bname (RpcRequestHeader): the broker the client addresses.
	BrokerName Opt[string]
}

func (h *GetMinOffsetRequestHeader) fields(c *fieldCodec) {
	c.str(fTopic, &h.Topic)
	c.i32(fQueueID, &h.QueueID)
	c.optStr(fBname, &h.BrokerName)
}

// Decode implements Header.
func (h *GetMinOffsetRequestHeader) Decode(ext Ext) error {
	*h = GetMinOffsetRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetMinOffsetRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetMinOffsetResponseHeader answers GET_MIN_OFFSET.
type GetMinOffsetResponseHeader struct {
	Offset int64
}

func (h *GetMinOffsetResponseHeader) fields(c *fieldCodec) {
	c.i64(fOffset, &h.Offset)
}

// Decode implements Header.
func (h *GetMinOffsetResponseHeader) Decode(ext Ext) error {
	*h = GetMinOffsetResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetMinOffsetResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetEarliestMsgStoretimeRequestHeader is the header of GET_EARLIEST_MSG_STORETIME (Java
// GetEarliestMsgStoretimeRequestHeader).
type GetEarliestMsgStoretimeRequestHeader struct {
	Topic   string
	QueueID int32
	// RocketMQ 5's bname (RpcRequestHeader): the broker the client addresses.
	BrokerName Opt[string]
}

func (h *GetEarliestMsgStoretimeRequestHeader) fields(c *fieldCodec) {
	c.str(fTopic, &h.Topic)
	c.i32(fQueueID, &h.QueueID)
	c.optStr(fBname, &h.BrokerName)
}

// Decode implements Header.
func (h *GetEarliestMsgStoretimeRequestHeader) Decode(ext Ext) error {
	*h = GetEarliestMsgStoretimeRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetEarliestMsgStoretimeRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetEarliestMsgStoretimeResponseHeader answers GET_EARLIEST_MSG_STORETIME.
type GetEarliestMsgStoretimeResponseHeader struct {
	Timestamp int64
}

func (h *GetEarliestMsgStoretimeResponseHeader) fields(c *fieldCodec) {
	c.i64(fTimestamp, &h.Timestamp)
}

// Decode implements Header.
func (h *GetEarliestMsgStoretimeResponseHeader) Decode(ext Ext) error {
	*h = GetEarliestMsgStoretimeResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetEarliestMsgStoretimeResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// SearchOffsetRequestHeader is the header of SEARCH_OFFSET_BY_TIMESTAMP (Java
// SearchOffsetRequestHeader).
type SearchOffsetRequestHeader struct {
	Topic     string
	QueueID   int32
	Timestamp int64
	// BoundaryType is RocketMQ 5's "lower" or "upper".
	BoundaryType Opt[string]
	// RocketMQ 5's bname (RpcRequestHeader): the broker the client addresses.
	BrokerName Opt[string]
}

func (h *SearchOffsetRequestHeader) fields(c *fieldCodec) {
	c.str(fTopic, &h.Topic)
	c.i32(fQueueID, &h.QueueID)
	c.i64(fTimestamp, &h.Timestamp)
	c.optStr(fBoundaryType, &h.BoundaryType)
	c.optStr(fBname, &h.BrokerName)
}

// Decode implements Header.
func (h *SearchOffsetRequestHeader) Decode(ext Ext) error {
	*h = SearchOffsetRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h SearchOffsetRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// SearchOffsetResponseHeader answers SEARCH_OFFSET_BY_TIMESTAMP.
type SearchOffsetResponseHeader struct {
	Offset int64
}

func (h *SearchOffsetResponseHeader) fields(c *fieldCodec) {
	c.i64(fOffset, &h.Offset)
}

// Decode implements Header.
func (h *SearchOffsetResponseHeader) Decode(ext Ext) error {
	*h = SearchOffsetResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h SearchOffsetResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }
