package protocol

// CreateTopicRequestHeader is the header of UPDATE_AND_CREATE_TOPIC (Java
// CreateTopicRequestHeader).
type CreateTopicRequestHeader struct {
	Topic          string
	DefaultTopic   string
	ReadQueueNums  int32
	WriteQueueNums int32
	Perm           int32
	// TopicFilterType and Order are required by Java; this broker has always taken SINGLE_TAG and false for them.
	TopicFilterType Opt[string]
	TopicSysFlag    Opt[int32]
	Order           Opt[bool]
	// Attributes and Force are RocketMQ 5's.
	Attributes Opt[string]
	Force      Opt[bool]
}

func (h *CreateTopicRequestHeader) fields(c *fieldCodec) {
	c.str(fTopic, &h.Topic)
	c.str(fDefaultTopic, &h.DefaultTopic)
	c.i32(fReadQueueNums, &h.ReadQueueNums)
	c.i32(fWriteQueueNums, &h.WriteQueueNums)
	c.i32(fPerm, &h.Perm)
	c.optStr(fTopicFilterType, &h.TopicFilterType)
	c.optI32(fTopicSysFlag, &h.TopicSysFlag)
	c.optBool(fOrder, &h.Order)
	c.optStr(fAttributes, &h.Attributes)
	c.optBool(fForce, &h.Force)
}

// Decode implements Header.
func (h *CreateTopicRequestHeader) Decode(ext Ext) error {
	*h = CreateTopicRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h CreateTopicRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// DeleteTopicRequestHeader is the header of DELETE_TOPIC_IN_BROKER.
type DeleteTopicRequestHeader struct {
	Topic string
}

func (h *DeleteTopicRequestHeader) fields(c *fieldCodec) {
	c.str(fTopic, &h.Topic)
}

// Decode implements Header.
func (h *DeleteTopicRequestHeader) Decode(ext Ext) error {
	*h = DeleteTopicRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h DeleteTopicRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// DeleteSubscriptionGroupRequestHeader is the header of DELETE_SUBSCRIPTIONGROUP. RocketMQ 4.9
// names the flag that also drops the group's offsets removeOffset, 5.x cleanOffset.
type DeleteSubscriptionGroupRequestHeader struct {
	GroupName    string
	RemoveOffset Opt[bool]
	CleanOffset  Opt[bool]
}

func (h *DeleteSubscriptionGroupRequestHeader) fields(c *fieldCodec) {
	c.str(fGroupName, &h.GroupName)
	c.optBool(fRemoveOffset, &h.RemoveOffset)
	c.optBool(fCleanOffset, &h.CleanOffset)
}

// Decode implements Header.
func (h *DeleteSubscriptionGroupRequestHeader) Decode(ext Ext) error {
	*h = DeleteSubscriptionGroupRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h DeleteSubscriptionGroupRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetConsumeStatsRequestHeader is the header of GET_CONSUME_STATS.
type GetConsumeStatsRequestHeader struct {
	ConsumerGroup string
	Topic         Opt[string]
	// TopicList is RocketMQ 5's.
	TopicList Opt[string]
}

func (h *GetConsumeStatsRequestHeader) fields(c *fieldCodec) {
	c.str(fConsumerGroup, &h.ConsumerGroup)
	c.optStr(fTopic, &h.Topic)
	c.optStr(fTopicList, &h.TopicList)
}

// Decode implements Header.
func (h *GetConsumeStatsRequestHeader) Decode(ext Ext) error {
	*h = GetConsumeStatsRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetConsumeStatsRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetTopicStatsInfoRequestHeader is the header of GET_TOPIC_STATS_INFO.
type GetTopicStatsInfoRequestHeader struct {
	Topic string
}

func (h *GetTopicStatsInfoRequestHeader) fields(c *fieldCodec) {
	c.str(fTopic, &h.Topic)
}

// Decode implements Header.
func (h *GetTopicStatsInfoRequestHeader) Decode(ext Ext) error {
	*h = GetTopicStatsInfoRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetTopicStatsInfoRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// QueryTopicConsumeByWhoRequestHeader is the header of QUERY_TOPIC_CONSUME_BY_WHO.
type QueryTopicConsumeByWhoRequestHeader struct {
	Topic string
}

func (h *QueryTopicConsumeByWhoRequestHeader) fields(c *fieldCodec) {
	c.str(fTopic, &h.Topic)
}

// Decode implements Header.
func (h *QueryTopicConsumeByWhoRequestHeader) Decode(ext Ext) error {
	*h = QueryTopicConsumeByWhoRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h QueryTopicConsumeByWhoRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// QueryConsumeTimeSpanRequestHeader is the header of QUERY_CONSUME_TIME_SPAN.
type QueryConsumeTimeSpanRequestHeader struct {
	Topic string
	Group string
}

func (h *QueryConsumeTimeSpanRequestHeader) fields(c *fieldCodec) {
	c.str(fTopic, &h.Topic)
	c.str(fGroup, &h.Group)
}

// Decode implements Header.
func (h *QueryConsumeTimeSpanRequestHeader) Decode(ext Ext) error {
	*h = QueryConsumeTimeSpanRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h QueryConsumeTimeSpanRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetBrokerConfigResponseHeader answers GET_BROKER_CONFIG: Version is the configuration's
// DataVersion as JSON.
type GetBrokerConfigResponseHeader struct {
	Version string
}

func (h *GetBrokerConfigResponseHeader) fields(c *fieldCodec) {
	c.str(fVersion, &h.Version)
}

// Decode implements Header.
func (h *GetBrokerConfigResponseHeader) Decode(ext Ext) error {
	*h = GetBrokerConfigResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetBrokerConfigResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// SessionCredentials are the ACL fields any request may carry (Java SessionCredentials): the
// account, the request's signature and a security token.
type SessionCredentials struct {
	AccessKey     Opt[string]
	Signature     Opt[string]
	SecurityToken Opt[string]
}

func (h *SessionCredentials) fields(c *fieldCodec) {
	c.optStr(fAccessKey, &h.AccessKey)
	c.optStr(fSignature, &h.Signature)
	c.optStr(fSecurityToken, &h.SecurityToken)
}

// Decode implements Header.
func (h *SessionCredentials) Decode(ext Ext) error {
	*h = SessionCredentials{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h SessionCredentials) Encode(ext *Ext) { encodeHeader(ext, h.fields) }
