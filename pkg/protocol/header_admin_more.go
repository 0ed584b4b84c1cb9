package protocol

// GetTopicConfigRequestHeader is the header of GET_TOPIC_CONFIG (RocketMQ 5).
type GetTopicConfigRequestHeader struct {
	Topic string
}

func (h *GetTopicConfigRequestHeader) fields(c *fieldCodec) {
	c.str(fTopic, &h.Topic)
}

// Decode implements Header.
func (h *GetTopicConfigRequestHeader) Decode(ext Ext) error {
	*h = GetTopicConfigRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetTopicConfigRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetSubscriptionGroupConfigRequestHeader is the header of GET_SUBSCRIPTIONGROUP_CONFIG (RocketMQ 5).
type GetSubscriptionGroupConfigRequestHeader struct {
	Group string
}

func (h *GetSubscriptionGroupConfigRequestHeader) fields(c *fieldCodec) {
	c.str(fGroup, &h.Group)
}

// Decode implements Header.
func (h *GetSubscriptionGroupConfigRequestHeader) Decode(ext Ext) error {
	*h = GetSubscriptionGroupConfigRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetSubscriptionGroupConfigRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// CloneGroupOffsetRequestHeader is the header of CLONE_GROUP_OFFSET: copy srcGroup's offsets to
// destGroup, of one topic or of every topic srcGroup has offsets on; offline skips the check that
// an online srcGroup subscribes to the topic.
type CloneGroupOffsetRequestHeader struct {
	SrcGroup  string
	DestGroup string
	Topic     Opt[string]
	Offline   Opt[bool]
}

func (h *CloneGroupOffsetRequestHeader) fields(c *fieldCodec) {
	c.str(fSrcGroup, &h.SrcGroup)
	c.str(fDestGroup, &h.DestGroup)
	c.optStr(fTopic, &h.Topic)
	c.optBool(fOffline, &h.Offline)
}

// Decode implements Header.
func (h *CloneGroupOffsetRequestHeader) Decode(ext Ext) error {
	*h = CloneGroupOffsetRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h CloneGroupOffsetRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// QueryConsumeQueueRequestHeader is the header of QUERY_CONSUME_QUEUE: count entries of one
// ConsumeQueue from index.
type QueryConsumeQueueRequestHeader struct {
	Topic         string
	QueueID       int32
	Index         int64
	Count         int32
	ConsumerGroup Opt[string]
}

func (h *QueryConsumeQueueRequestHeader) fields(c *fieldCodec) {
	c.str(fTopic, &h.Topic)
	c.i32(fQueueID, &h.QueueID)
	c.i64(fIndex, &h.Index)
	c.i32(fCount, &h.Count)
	c.optStr(fConsumerGroup, &h.ConsumerGroup)
}

// Decode implements Header.
func (h *QueryConsumeQueueRequestHeader) Decode(ext Ext) error {
	*h = QueryConsumeQueueRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h QueryConsumeQueueRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// QueryCorrectionOffsetHeader is the header of QUERY_CORRECTION_OFFSET: the lowest offset of
// a topic's queues among filterGroups (comma-separated), unless compareGroup is further.
type QueryCorrectionOffsetHeader struct {
	FilterGroups Opt[string]
	CompareGroup string
	Topic        string
}

func (h *QueryCorrectionOffsetHeader) fields(c *fieldCodec) {
	c.optStr(fFilterGroups, &h.FilterGroups)
	c.str(fCompareGroup, &h.CompareGroup)
	c.str(fTopic, &h.Topic)
}

// Decode implements Header.
func (h *QueryCorrectionOffsetHeader) Decode(ext Ext) error {
	*h = QueryCorrectionOffsetHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h QueryCorrectionOffsetHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }
