package protocol

// RecallMessageRequestHeader is the header of RECALL_MESSAGE (RocketMQ 5.3.1+
// RecallMessageRequestHeader): withdraw a timer message before it is delivered.
type RecallMessageRequestHeader struct {
	ProducerGroup Opt[string]
	Topic         string
	// RecallHandle is what the send's response carried (SendMessageResponseHeader.RecallHandle).
	RecallHandle string
	// BrokerName is RocketMQ 5's bname (RpcRequestHeader): the broker the client addresses.
	BrokerName Opt[string]
}

func (h *RecallMessageRequestHeader) fields(c *fieldCodec) {
	c.optStr(fProducerGroup, &h.ProducerGroup)
	c.str(fTopic, &h.Topic)
	c.str(fRecallHandle, &h.RecallHandle)
	c.optStr(fBname, &h.BrokerName)
}

// Decode implements Header.
func (h *RecallMessageRequestHeader) Decode(ext Ext) error {
	*h = RecallMessageRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h RecallMessageRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// RecallMessageResponseHeader answers RECALL_MESSAGE: the message id (UNIQ_KEY) of the recalled
// message.
type RecallMessageResponseHeader struct {
	MsgID string
	// MsgRegion is added by Java's broker outside the header class (MSG_REGION).
	MsgRegion Opt[string]
}

func (h *RecallMessageResponseHeader) fields(c *fieldCodec) {
	c.str(fMsgID, &h.MsgID)
	c.optStr(fMsgRegion, &h.MsgRegion)
}

// Decode implements Header.
func (h *RecallMessageResponseHeader) Decode(ext Ext) error {
	*h = RecallMessageResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h RecallMessageResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }
