package protocol

// The headers of RocketMQ 5's POP consumption (Java PopMessageRequestHeader and its siblings,
// protocol.md §2.10). Java's TopicQueueRequestHeader adds lo and RpcRequestHeader adds ns, nsd,
// bname and oway to every request; none of them changes what this broker does, so they are
// ignored like any undeclared name.

// PopMessageRequestHeader is the header of POP_MESSAGE. QueueID -1 pops from every queue of the
// topic. BornTime is required by Java's class, but Java's processor fills it in (now) before
// decoding when it is missing or "0"; here it is an Opt and the service does the same.
type PopMessageRequestHeader struct {
	ConsumerGroup string
	Topic         string
	QueueID       int32
	MaxMsgNums    int32
	InvisibleTime int64
	PollTime      int64
	BornTime      Opt[int64]
	InitMode      int32
	ExpType       Opt[string]
	Exp           Opt[string]
	Order         Opt[bool]
	AttemptID     Opt[string]
}

func (h *PopMessageRequestHeader) fields(c *fieldCodec) {
	c.str(fConsumerGroup, &h.ConsumerGroup)
	c.str(fTopic, &h.Topic)
	c.i32(fQueueID, &h.QueueID)
	c.i32(fMaxMsgNums, &h.MaxMsgNums)
	c.i64(fInvisibleTime, &h.InvisibleTime)
	c.i64(fPollTime, &h.PollTime)
	c.optI64(fBornTime, &h.BornTime)
	c.i32(fInitMode, &h.InitMode)
	c.optStr(fExpType, &h.ExpType)
	c.optStr(fExp, &h.Exp)
	c.optBool(fOrder, &h.Order)
	c.optStr(fAttemptID, &h.AttemptID)
}

// Decode implements Header.
func (h *PopMessageRequestHeader) Decode(ext Ext) error {
	*h = PopMessageRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h PopMessageRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// PopMessageResponseHeader is the header of a POP_MESSAGE answer, and of a PEEK_MESSAGE answer
// (which sets only RestNum). The three info strings tell the client which queue offsets each
// popped message came from (ExtraInfo, protocol.md §2.10).
type PopMessageResponseHeader struct {
	PopTime         int64
	InvisibleTime   int64
	ReviveQid       int32
	RestNum         int64
	StartOffsetInfo Opt[string]
	MsgOffsetInfo   Opt[string]
	OrderCountInfo  Opt[string]
}

func (h *PopMessageResponseHeader) fields(c *fieldCodec) {
	c.i64(fPopTime, &h.PopTime)
	c.i64(fInvisibleTime, &h.InvisibleTime)
	c.i32(fReviveQid, &h.ReviveQid)
	c.i64(fRestNum, &h.RestNum)
	c.optStr(fStartOffsetInfo, &h.StartOffsetInfo)
	c.optStr(fMsgOffsetInfo, &h.MsgOffsetInfo)
	c.optStr(fOrderCountInfo, &h.OrderCountInfo)
}

// Decode implements Header.
func (h *PopMessageResponseHeader) Decode(ext Ext) error {
	*h = PopMessageResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h PopMessageResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// AckMessageRequestHeader is the header of ACK_MESSAGE: the message's topic (the retry topic for
// a message popped from one), queue and offset, and the POP_CK property it was delivered with.
type AckMessageRequestHeader struct {
	ConsumerGroup string
	Topic         string
	QueueID       int32
	ExtraInfo     string
	Offset        int64
}

func (h *AckMessageRequestHeader) fields(c *fieldCodec) {
	c.str(fConsumerGroup, &h.ConsumerGroup)
	c.str(fTopic, &h.Topic)
	c.i32(fQueueID, &h.QueueID)
	c.str(fExtraInfo, &h.ExtraInfo)
	c.i64(fOffset, &h.Offset)
}

// Decode implements Header.
func (h *AckMessageRequestHeader) Decode(ext Ext) error {
	*h = AckMessageRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h AckMessageRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// ChangeInvisibleTimeRequestHeader is the header of CHANGE_MESSAGE_INVISIBLETIME: an ACK_MESSAGE
// that also gives the message a new invisible time, counted from now.
type ChangeInvisibleTimeRequestHeader struct {
	ConsumerGroup string
	Topic         string
	QueueID       int32
	ExtraInfo     string
	Offset        int64
	InvisibleTime int64
}

func (h *ChangeInvisibleTimeRequestHeader) fields(c *fieldCodec) {
	c.str(fConsumerGroup, &h.ConsumerGroup)
	c.str(fTopic, &h.Topic)
	c.i32(fQueueID, &h.QueueID)
	c.str(fExtraInfo, &h.ExtraInfo)
	c.i64(fOffset, &h.Offset)
	c.i64(fInvisibleTime, &h.InvisibleTime)
}

// Decode implements Header.
func (h *ChangeInvisibleTimeRequestHeader) Decode(ext Ext) error {
	*h = ChangeInvisibleTimeRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h ChangeInvisibleTimeRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// ChangeInvisibleTimeResponseHeader answers CHANGE_MESSAGE_INVISIBLETIME: the new pop time and
// invisible time, from which the client builds the message's new POP_CK.
type ChangeInvisibleTimeResponseHeader struct {
	PopTime       int64
	InvisibleTime int64
	ReviveQid     int32
}

func (h *ChangeInvisibleTimeResponseHeader) fields(c *fieldCodec) {
	c.i64(fPopTime, &h.PopTime)
	c.i64(fInvisibleTime, &h.InvisibleTime)
	c.i32(fReviveQid, &h.ReviveQid)
}

// Decode implements Header.
func (h *ChangeInvisibleTimeResponseHeader) Decode(ext Ext) error {
	*h = ChangeInvisibleTimeResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h ChangeInvisibleTimeResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// PeekMessageRequestHeader is the header of PEEK_MESSAGE: read what a POP would get, without
// taking it.
type PeekMessageRequestHeader struct {
	Topic         string
	QueueID       int32
	MaxMsgNums    int32
	ConsumerGroup string
}

func (h *PeekMessageRequestHeader) fields(c *fieldCodec) {
	c.str(fTopic, &h.Topic)
	c.i32(fQueueID, &h.QueueID)
	c.i32(fMaxMsgNums, &h.MaxMsgNums)
	c.str(fConsumerGroup, &h.ConsumerGroup)
}

// Decode implements Header.
func (h *PeekMessageRequestHeader) Decode(ext Ext) error {
	*h = PeekMessageRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h PeekMessageRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// NotificationRequestHeader is the header of NOTIFICATION: is there anything to pop? It is held
// like a POP_MESSAGE until there is or PollTime runs out. BornTime as in PopMessageRequestHeader.
type NotificationRequestHeader struct {
	ConsumerGroup string
	Topic         string
	QueueID       int32
	PollTime      int64
	BornTime      Opt[int64]
	Order         Opt[bool]
	AttemptID     Opt[string]
}

func (h *NotificationRequestHeader) fields(c *fieldCodec) {
	c.str(fConsumerGroup, &h.ConsumerGroup)
	c.str(fTopic, &h.Topic)
	c.i32(fQueueID, &h.QueueID)
	c.i64(fPollTime, &h.PollTime)
	c.optI64(fBornTime, &h.BornTime)
	c.optBool(fOrder, &h.Order)
	c.optStr(fAttemptID, &h.AttemptID)
}

// Decode implements Header.
func (h *NotificationRequestHeader) Decode(ext Ext) error {
	*h = NotificationRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h NotificationRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// NotificationResponseHeader answers NOTIFICATION. Java always writes pollingFull (a primitive);
// here it is an Opt that the broker always sets.
type NotificationResponseHeader struct {
	HasMsg      bool
	PollingFull Opt[bool]
}

func (h *NotificationResponseHeader) fields(c *fieldCodec) {
	c.boolean(fHasMsg, &h.HasMsg)
	c.optBool(fPollingFull, &h.PollingFull)
}

// Decode implements Header.
func (h *NotificationResponseHeader) Decode(ext Ext) error {
	*h = NotificationResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h NotificationResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// PollingInfoRequestHeader is the header of POLLING_INFO: how many POP_MESSAGE requests for the
// group, topic and queue (-1: the whole topic) the broker holds.
type PollingInfoRequestHeader struct {
	ConsumerGroup string
	Topic         string
	QueueID       int32
}

func (h *PollingInfoRequestHeader) fields(c *fieldCodec) {
	c.str(fConsumerGroup, &h.ConsumerGroup)
	c.str(fTopic, &h.Topic)
	c.i32(fQueueID, &h.QueueID)
}

// Decode implements Header.
func (h *PollingInfoRequestHeader) Decode(ext Ext) error {
	*h = PollingInfoRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h PollingInfoRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// PollingInfoResponseHeader answers POLLING_INFO.
type PollingInfoResponseHeader struct {
	PollingNum int32
}

func (h *PollingInfoResponseHeader) fields(c *fieldCodec) {
	c.i32(fPollingNum, &h.PollingNum)
}

// Decode implements Header.
func (h *PollingInfoResponseHeader) Decode(ext Ext) error {
	*h = PollingInfoResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h PollingInfoResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }
