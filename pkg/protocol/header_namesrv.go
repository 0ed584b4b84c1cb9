package protocol

// RegisterBrokerRequestHeader is the header of REGISTER_BROKER (Java RegisterBrokerRequestHeader).
type RegisterBrokerRequestHeader struct {
	BrokerName   string
	BrokerAddr   string
	ClusterName  string
	HaServerAddr string
	BrokerID     int64
	// HeartbeatTimeoutMillis and EnableActingMaster are RocketMQ 5's.
	HeartbeatTimeoutMillis Opt[int64]
	EnableActingMaster     Opt[bool]
	Compressed             Opt[bool]
	// BodyCrc32 is the CRC-32 of the body masked to 31 bits; absent or 0 is not checked.
	BodyCrc32 Opt[int32]
	// ZoneName is added by RocketMQ 5's broker outside the header class (__ZONE_NAME).
	ZoneName Opt[string]
}

func (h *RegisterBrokerRequestHeader) fields(c *fieldCodec) {
	c.str(fBrokerName, &h.BrokerName)
	c.str(fBrokerAddr, &h.BrokerAddr)
	c.str(fClusterName, &h.ClusterName)
	c.str(fHaServerAddr, &h.HaServerAddr)
	c.i64(fBrokerID, &h.BrokerID)
	c.optI64(fHeartbeatTimeoutMillis, &h.HeartbeatTimeoutMillis)
	c.optBool(fEnableActingMaster, &h.EnableActingMaster)
	c.optBool(fCompressed, &h.Compressed)
	c.optI32(fBodyCrc32, &h.BodyCrc32)
	c.optStr(fZoneName, &h.ZoneName)
}

// Decode implements Header.
func (h *RegisterBrokerRequestHeader) Decode(ext Ext) error {
	*h = RegisterBrokerRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h RegisterBrokerRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// RegisterBrokerResponseHeader answers REGISTER_BROKER: the master of the broker's group, for a
// slave.
type RegisterBrokerResponseHeader struct {
	HaServerAddr Opt[string]
	MasterAddr   Opt[string]
}

func (h *RegisterBrokerResponseHeader) fields(c *fieldCodec) {
	c.optStr(fHaServerAddr, &h.HaServerAddr)
	c.optStr(fMasterAddr, &h.MasterAddr)
}

// Decode implements Header.
func (h *RegisterBrokerResponseHeader) Decode(ext Ext) error {
	*h = RegisterBrokerResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h RegisterBrokerResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// UnregisterBrokerRequestHeader is the header of UNREGISTER_BROKER (Java
// UnRegisterBrokerRequestHeader).
type UnregisterBrokerRequestHeader struct {
	BrokerName  string
	BrokerAddr  string
	ClusterName string
	BrokerID    int64
}

func (h *UnregisterBrokerRequestHeader) fields(c *fieldCodec) {
	c.str(fBrokerName, &h.BrokerName)
	c.str(fBrokerAddr, &h.BrokerAddr)
	c.str(fClusterName, &h.ClusterName)
	c.i64(fBrokerID, &h.BrokerID)
}

// Decode implements Header.
func (h *UnregisterBrokerRequestHeader) Decode(ext Ext) error {
	*h = UnregisterBrokerRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h UnregisterBrokerRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// QueryDataVersionRequestHeader is the header of QUERY_DATA_VERSION.
type QueryDataVersionRequestHeader struct {
	BrokerName  string
	BrokerAddr  string
	ClusterName string
	BrokerID    int64
}

func (h *QueryDataVersionRequestHeader) fields(c *fieldCodec) {
	c.str(fBrokerName, &h.BrokerName)
	c.str(fBrokerAddr, &h.BrokerAddr)
	c.str(fClusterName, &h.ClusterName)
	c.i64(fBrokerID, &h.BrokerID)
}

// Decode implements Header.
func (h *QueryDataVersionRequestHeader) Decode(ext Ext) error {
	*h = QueryDataVersionRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h QueryDataVersionRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// QueryDataVersionResponseHeader answers QUERY_DATA_VERSION.
type QueryDataVersionResponseHeader struct {
	Changed bool
}

func (h *QueryDataVersionResponseHeader) fields(c *fieldCodec) {
	c.boolean(fChanged, &h.Changed)
}

// Decode implements Header.
func (h *QueryDataVersionResponseHeader) Decode(ext Ext) error {
	*h = QueryDataVersionResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h QueryDataVersionResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetRouteInfoRequestHeader is the header of GET_ROUTEINFO_BY_TOPIC.
type GetRouteInfoRequestHeader struct {
	Topic string
	// AcceptStandardJSONOnly is RocketMQ 5's.
	AcceptStandardJSONOnly Opt[bool]
}

func (h *GetRouteInfoRequestHeader) fields(c *fieldCodec) {
	c.str(fTopic, &h.Topic)
	c.optBool(fAcceptStandardJSONOnly, &h.AcceptStandardJSONOnly)
}

// Decode implements Header.
func (h *GetRouteInfoRequestHeader) Decode(ext Ext) error {
	*h = GetRouteInfoRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetRouteInfoRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetTopicsByClusterRequestHeader is the header of GET_TOPICS_BY_CLUSTER.
type GetTopicsByClusterRequestHeader struct {
	Cluster string
}

func (h *GetTopicsByClusterRequestHeader) fields(c *fieldCodec) {
	c.str(fCluster, &h.Cluster)
}

// Decode implements Header.
func (h *GetTopicsByClusterRequestHeader) Decode(ext Ext) error {
	*h = GetTopicsByClusterRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetTopicsByClusterRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// DeleteTopicFromNamesrvRequestHeader is the header of DELETE_TOPIC_IN_NAMESRV; without a
// cluster the topic goes from every cluster.
type DeleteTopicFromNamesrvRequestHeader struct {
	Topic       string
	ClusterName Opt[string]
}

func (h *DeleteTopicFromNamesrvRequestHeader) fields(c *fieldCodec) {
	c.str(fTopic, &h.Topic)
	c.optStr(fClusterName, &h.ClusterName)
}

// Decode implements Header.
func (h *DeleteTopicFromNamesrvRequestHeader) Decode(ext Ext) error {
	*h = DeleteTopicFromNamesrvRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h DeleteTopicFromNamesrvRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// PutKVConfigRequestHeader is the header of PUT_KV_CONFIG.
type PutKVConfigRequestHeader struct {
	Namespace string
	Key       string
	Value     string
}

func (h *PutKVConfigRequestHeader) fields(c *fieldCodec) {
	c.str(fNamespace, &h.Namespace)
	c.str(fKey, &h.Key)
	c.str(fValue, &h.Value)
}

// Decode implements Header.
func (h *PutKVConfigRequestHeader) Decode(ext Ext) error {
	*h = PutKVConfigRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h PutKVConfigRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetKVConfigRequestHeader is the header of GET_KV_CONFIG.
type GetKVConfigRequestHeader struct {
	Namespace string
	Key       string
}

func (h *GetKVConfigRequestHeader) fields(c *fieldCodec) {
	c.str(fNamespace, &h.Namespace)
	c.str(fKey, &h.Key)
}

// Decode implements Header.
func (h *GetKVConfigRequestHeader) Decode(ext Ext) error {
	*h = GetKVConfigRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetKVConfigRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetKVConfigResponseHeader answers GET_KV_CONFIG.
type GetKVConfigResponseHeader struct {
	Value Opt[string]
}

func (h *GetKVConfigResponseHeader) fields(c *fieldCodec) {
	c.optStr(fValue, &h.Value)
}

// Decode implements Header.
func (h *GetKVConfigResponseHeader) Decode(ext Ext) error {
	*h = GetKVConfigResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetKVConfigResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// DeleteKVConfigRequestHeader is the header of DELETE_KV_CONFIG.
type DeleteKVConfigRequestHeader struct {
	Namespace string
	Key       string
}

func (h *DeleteKVConfigRequestHeader) fields(c *fieldCodec) {
	c.str(fNamespace, &h.Namespace)
	c.str(fKey, &h.Key)
}

// Decode implements Header.
func (h *DeleteKVConfigRequestHeader) Decode(ext Ext) error {
	*h = DeleteKVConfigRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h DeleteKVConfigRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// GetKVListByNamespaceRequestHeader is the header of GET_KVLIST_BY_NAMESPACE.
type GetKVListByNamespaceRequestHeader struct {
	Namespace string
}

func (h *GetKVListByNamespaceRequestHeader) fields(c *fieldCodec) {
	c.str(fNamespace, &h.Namespace)
}

// Decode implements Header.
func (h *GetKVListByNamespaceRequestHeader) Decode(ext Ext) error {
	*h = GetKVListByNamespaceRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h GetKVListByNamespaceRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// WipeWritePermOfBrokerRequestHeader is the header of WIPE_WRITE_PERM_OF_BROKER: the broker
// group whose queues lose their write permission in the name server's routes.
type WipeWritePermOfBrokerRequestHeader struct {
	BrokerName string
}

func (h *WipeWritePermOfBrokerRequestHeader) fields(c *fieldCodec) {
	c.str(fBrokerName, &h.BrokerName)
}

// Decode implements Header.
func (h *WipeWritePermOfBrokerRequestHeader) Decode(ext Ext) error {
	*h = WipeWritePermOfBrokerRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h WipeWritePermOfBrokerRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// WipeWritePermOfBrokerResponseHeader answers WIPE_WRITE_PERM_OF_BROKER: how many topics the
// broker group had queues of.
type WipeWritePermOfBrokerResponseHeader struct {
	WipeTopicCount int32
}

func (h *WipeWritePermOfBrokerResponseHeader) fields(c *fieldCodec) {
	c.i32(fWipeTopicCount, &h.WipeTopicCount)
}

// Decode implements Header.
func (h *WipeWritePermOfBrokerResponseHeader) Decode(ext Ext) error {
	*h = WipeWritePermOfBrokerResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h WipeWritePermOfBrokerResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// AddWritePermOfBrokerRequestHeader is the header of ADD_WRITE_PERM_OF_BROKER: the broker group
// whose queues become readable and writable again in the name server's routes.
type AddWritePermOfBrokerRequestHeader struct {
	BrokerName string
}

func (h *AddWritePermOfBrokerRequestHeader) fields(c *fieldCodec) {
	c.str(fBrokerName, &h.BrokerName)
}

// Decode implements Header.
func (h *AddWritePermOfBrokerRequestHeader) Decode(ext Ext) error {
	*h = AddWritePermOfBrokerRequestHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h AddWritePermOfBrokerRequestHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }

// AddWritePermOfBrokerResponseHeader answers ADD_WRITE_PERM_OF_BROKER: how many topics the
// broker group had queues of.
type AddWritePermOfBrokerResponseHeader struct {
	AddTopicCount int32
}

func (h *AddWritePermOfBrokerResponseHeader) fields(c *fieldCodec) {
	c.i32(fAddTopicCount, &h.AddTopicCount)
}

// Decode implements Header.
func (h *AddWritePermOfBrokerResponseHeader) Decode(ext Ext) error {
	*h = AddWritePermOfBrokerResponseHeader{}
	return decodeHeader(ext, h.fields)
}

// Encode implements Header.
func (h AddWritePermOfBrokerResponseHeader) Encode(ext *Ext) { encodeHeader(ext, h.fields) }
