package protocol

// Headers of the broker's admin requests that mqadmin sends and the broker's handlers read:
// GET_PRODUCER_CONNECTION_LIST, VIEW_BROKER_STATS_DATA and GET_BROKER_CONSUME_STATS.

// GetProducerConnectionListRequestHeader is the header of GET_PRODUCER_CONNECTION_LIST.
type GetProducerConnectionListRequestHeader struct {
	ProducerGroup string
}

func (h *GetProducerConnectionListRequestHeader) fields(c *fieldCodec) {
	c.str(fProducerGroup, &h.ProducerGroup)
}

// Decode implements Header.
func (h *GetProducerConnectionListRequestHeader) Decode(ext Ext) error {
	*h = GetProducerConnectionListRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetProducerConnectionListRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// ViewBrokerStatsDataRequestHeader is the header of VIEW_BROKER_STATS_DATA: one statistic
// (TOPIC_PUT_NUMS, GROUP_GET_NUMS, ...) of one key (a topic, "topic@group", ...).
type ViewBrokerStatsDataRequestHeader struct {
	StatsName string
	StatsKey  string
}

func (h *ViewBrokerStatsDataRequestHeader) fields(c *fieldCodec) {
	c.str(fStatsName, &h.StatsName)
	c.str(fStatsKey, &h.StatsKey)
}

// Decode implements Header.
func (h *ViewBrokerStatsDataRequestHeader) Decode(ext Ext) error {
	*h = ViewBrokerStatsDataRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h ViewBrokerStatsDataRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetConsumeStatsInBrokerHeader is the header of GET_BROKER_CONSUME_STATS: every group's
// progress on one broker, of order topics only when IsOrder.
type GetConsumeStatsInBrokerHeader struct {
	IsOrder bool
}

func (h *GetConsumeStatsInBrokerHeader) fields(c *fieldCodec) {
	c.boolean(fIsOrder, &h.IsOrder)
}

// Decode implements Header.
func (h *GetConsumeStatsInBrokerHeader) Decode(ext Ext) error {
	*h = GetConsumeStatsInBrokerHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetConsumeStatsInBrokerHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }
