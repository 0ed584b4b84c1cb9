package namesrv

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// Outcomes that are not SUCCESS. responseFor maps them (and header and body errors) to response
// codes; it is the only place that does.
var (
	errNotReady          = errors.New("name server not ready")
	errAllTopicsDisabled = errors.New("disable")
	errCRCMismatch       = errors.New("crc32 not match")
)

type topicNotExistError struct{ topic string }

func (e topicNotExistError) Error() string {
	return "No topic route info in name server for the topic: " + e.topic
}

type kvNotFoundError struct{ namespace, key string }

func (e kvNotFoundError) Error() string {
	if e.key == "" {
		return "No config item, Namespace: " + e.namespace
	}
	return "No config item, Namespace: " + e.namespace + " Key: " + e.key
}

// peerRefusedError is a request from an address its allowlist does not hold.
type peerRefusedError struct {
	code protocol.RequestCode
	peer string
	list string // the allowlist's key
}

func (e peerRefusedError) Error() string {
	return fmt.Sprintf("%s from %s refused: the address is not in %s", e.code, e.peer, e.list)
}

type badBodyError struct{ err error }

func (e badBodyError) Error() string { return "bad body: " + e.err.Error() }
func (e badBodyError) Unwrap() error { return e.err }

// responseFor maps a handler's error to RocketMQ's response code and remark.
func responseFor(err error) (protocol.ResponseCode, string) {
	var notExist topicNotExistError
	var kvMissing kvNotFoundError
	var refused peerRefusedError
	switch {
	case errors.As(err, &notExist):
		return protocol.TopicNotExist, err.Error()
	case errors.As(err, &kvMissing):
		return protocol.QueryNotFound, err.Error()
	case errors.As(err, &refused), errors.Is(err, errBlackListed):
		return protocol.NoPermission, err.Error()
	default:
		// Header and body errors, invalid names, registrations over a cap or in conflict with a live
		// broker, KV values over their limits, CRC mismatch, not ready, disabled listing, persistence
		// failures: Java answers what it checks of these with SYSTEM_ERROR and the reason.
		return protocol.SystemError, err.Error()
	}
}

// reply is a successful answer's content: a typed header (or nil) and a body.
type reply struct {
	header protocol.Header
	body   []byte
}

type handleFunc func(c *remoting.Conn, req *protocol.Command) (reply, error)

// processor holds the request handlers of the name server (Java DefaultRequestProcessor).
type processor struct {
	opts      Options
	lg        *zap.Logger
	warn      *limitedLog // refused and failed requests
	conflicts *limitedLog // registrations refused for taking over a live broker
	// decodeSlots holds a token per REGISTER_BROKER body being decoded (registrationDecodes).
	decodeSlots chan struct{}
	routes      *RouteInfoManager
	kv          *KVConfig
	live        *liveConfig
	startedAt   time.Time
}

// handlers returns every request code the name server serves.
func (p *processor) handlers() map[protocol.RequestCode]handleFunc {
	return map[protocol.RequestCode]handleFunc{
		protocol.PutKVConfig:                   p.putKVConfig,
		protocol.GetKVConfig:                   p.getKVConfig,
		protocol.DeleteKVConfig:                p.deleteKVConfig,
		protocol.GetKVListByNamespace:          p.getKVListByNamespace,
		protocol.RegisterBroker:                p.registerBroker,
		protocol.UnregisterBroker:              p.unregisterBroker,
		protocol.QueryDataVersion:              p.queryDataVersion,
		protocol.GetRouteinfoByTopic:           p.getRouteInfoByTopic,
		protocol.GetBrokerClusterInfo:          p.getBrokerClusterInfo,
		protocol.GetAllTopicListFromNameserver: p.getAllTopicList,
		protocol.GetTopicsByCluster:            p.getTopicsByCluster,
		protocol.DeleteTopicInNamesrv:          p.deleteTopicInNamesrv,
		protocol.WipeWritePermOfBroker:         p.wipeWritePermOfBroker,
		protocol.AddWritePermOfBroker:          p.addWritePermOfBroker,
		protocol.GetNamesrvConfig:              p.getNamesrvConfig,
		protocol.UpdateNamesrvConfig:           p.updateNamesrvConfig,
	}
}

// serve adapts a handleFunc to remoting.Handler, turning its outcome into a response. A request
// whose code an allowlist guards is refused unless its peer is on it.
func (p *processor) serve(code protocol.RequestCode, fn handleFunc) remoting.Handler {
	return remoting.HandlerFunc(func(_ context.Context, c *remoting.Conn, req *protocol.Command) *protocol.Command {
		var r reply
		err := p.guard(code, c)
		if err == nil {
			r, err = fn(c, req)
		}
		if err != nil {
			rc, remark := responseFor(err)
			var conflict *RegistrationConflictError
			if rc != protocol.TopicNotExist && rc != protocol.QueryNotFound && !errors.As(err, &conflict) {
				p.warn.log("request failed", zap.Stringer("code", code), zap.String("remote", c.RemoteAddr()), zap.Error(err))
			}
			return protocol.NewResponse(req, rc, remark)
		}
		resp := protocol.NewResponse(req, protocol.Success, "")
		if r.header != nil {
			r.header.Encode(&resp.ExtFields)
		}
		resp.Body = r.body
		return resp
	})
}

func encodeBody(v any) (reply, error) {
	data, err := body.Marshal(v)
	if err != nil {
		return reply{}, err
	}
	return reply{body: data}, nil
}

func (p *processor) registerBroker(c *remoting.Conn, req *protocol.Command) (reply, error) {
	var h protocol.RegisterBrokerRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return reply{}, err
	}
	if err := validateRegistrationHeader(h.ClusterName, h.BrokerName, h.BrokerAddr, h.HaServerAddr); err != nil {
		return reply{}, err
	}
	if err := validateOptionalBrokerName("zoneName", h.ZoneName.V); err != nil {
		return reply{}, err
	}
	reg := BrokerRegistration{
		BrokerName:         h.BrokerName,
		BrokerAddr:         h.BrokerAddr,
		ClusterName:        h.ClusterName,
		HAServerAddr:       h.HaServerAddr,
		BrokerID:           h.BrokerID,
		Timeout:            time.Duration(h.HeartbeatTimeoutMillis.V) * time.Millisecond,
		EnableActingMaster: h.EnableActingMaster.V,
		ZoneName:           h.ZoneName.V,
		Conn:               c,
	}
	if crc := h.BodyCrc32.V; crc != 0 && crc != int32(crc32.ChecksumIEEE(req.Body)&0x7FFFFFFF) {
		return reply{}, errCRCMismatch
	}
	rb, err := p.decodeRegistration(req.Body, h.Compressed.V)
	if err != nil {
		return reply{}, err
	}
	reg.Topics = &rb.TopicConfigSerializeWrapper
	reg.FilterServers = rb.FilterServerList
	res, err := p.routes.RegisterBroker(reg)
	if err != nil {
		p.conflictLogged(c, err)
		return reply{}, err
	}
	return p.registered(res)
}

// validateRegistrationHeader checks the names and addresses of REGISTER_BROKER and
// UNREGISTER_BROKER.
func validateRegistrationHeader(cluster, brokerName, brokerAddr, haServerAddr string) error {
	if err := validateBrokerName("clusterName", cluster); err != nil {
		return err
	}
	if err := validateBrokerName("brokerName", brokerName); err != nil {
		return err
	}
	if err := validateAddr("brokerAddr", brokerAddr); err != nil {
		return err
	}
	if haServerAddr == "" {
		return nil
	}
	return validateAddr("haServerAddr", haServerAddr)
}

// decodeRegistration decodes a REGISTER_BROKER body within the registration caps and checks its
// topic names and filter server addresses.
func (p *processor) decodeRegistration(data []byte, compressed bool) (*body.RegisterBrokerBody, error) {
	p.decodeSlots <- struct{}{}
	defer func() { <-p.decodeSlots }()
	rb, err := body.DecodeRegisterBrokerBodyLimited(data, compressed, body.RegisterLimits{
		MaxBodyBytes: p.opts.MaxRegistrationBodyBytes, MaxTopics: p.opts.MaxTopicsPerRegistration,
	})
	switch {
	case errors.Is(err, body.ErrRegisterTooManyTopics):
		return nil, fmt.Errorf("registration refused (registerBrokerMaxTopics): %w", err)
	case errors.Is(err, body.ErrRegisterBodyTooLarge):
		return nil, fmt.Errorf("registration refused (registerBrokerMaxBodyBytes): %w", err)
	case err != nil:
		return nil, badBodyError{err}
	}
	for name, tc := range rb.TopicConfigSerializeWrapper.TopicConfigTable {
		if err := validateTopic(name); err != nil {
			return nil, fmt.Errorf("registration refused: %w", err)
		}
		if tc.TopicName != "" && tc.TopicName != name {
			return nil, fmt.Errorf("registration refused: topic %s is listed under %s", quoteName(tc.TopicName), quoteName(name))
		}
		if err := validateQueues(name, tc); err != nil {
			return nil, fmt.Errorf("registration refused: %w", err)
		}
	}
	for _, fs := range rb.FilterServerList {
		if err := validateAddr("filterServer", fs); err != nil {
			return nil, fmt.Errorf("registration refused: %w", err)
		}
	}
	return rb, nil
}

// registered answers an accepted registration: where a slave's master is, and the order topic
// configuration when the name server returns it.
func (p *processor) registered(res RegisterResult) (reply, error) {
	var rh protocol.RegisterBrokerResponseHeader
	if res.MasterAddr != "" {
		rh.MasterAddr = protocol.Some(res.MasterAddr)
	}
	if res.HAServerAddr != "" {
		rh.HaServerAddr = protocol.Some(res.HAServerAddr)
	}
	r := reply{header: &rh}
	if p.live.get().returnOrderTopicConfigToBroker {
		if table, ok := p.kv.List(NamespaceOrderTopicConfig); ok {
			var err error
			if r.body, err = body.Marshal(body.KVTable{Table: table}); err != nil {
				return reply{}, err
			}
		}
	}
	return r, nil
}

func (p *processor) unregisterBroker(c *remoting.Conn, req *protocol.Command) (reply, error) {
	var h protocol.UnregisterBrokerRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return reply{}, err
	}
	if err := validateRegistrationHeader(h.ClusterName, h.BrokerName, h.BrokerAddr, ""); err != nil {
		return reply{}, err
	}
	if err := p.routes.UnregisterBroker(h.ClusterName, h.BrokerName, h.BrokerAddr, h.BrokerID, c); err != nil {
		p.conflictLogged(c, err)
		return reply{}, err
	}
	p.lg.Info("broker unregistered", zap.String("cluster", h.ClusterName), zap.String("brokerName", h.BrokerName),
		zap.String("brokerAddr", h.BrokerAddr), zap.Int64("brokerId", h.BrokerID))
	return reply{}, nil
}

func (p *processor) queryDataVersion(_ *remoting.Conn, req *protocol.Command) (reply, error) {
	var h protocol.QueryDataVersionRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return reply{}, err
	}
	if err := validateAddr("brokerAddr", h.BrokerAddr); err != nil {
		return reply{}, err
	}
	dv, err := body.DecodeDataVersion(req.Body)
	if err != nil {
		return reply{}, badBodyError{err}
	}
	changed, current := p.routes.QueryDataVersion(h.BrokerAddr, *dv)
	r := reply{header: &protocol.QueryDataVersionResponseHeader{Changed: changed}}
	if current != nil {
		if r.body, err = body.Marshal(current); err != nil {
			return reply{}, err
		}
	}
	return r, nil
}

func (p *processor) getRouteInfoByTopic(_ *remoting.Conn, req *protocol.Command) (reply, error) {
	var h protocol.GetRouteInfoRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return reply{}, err
	}
	topic := h.Topic
	if err := validateTopic(topic); err != nil {
		return reply{}, err
	}
	cfg := p.live.get()
	if cfg.needWaitForService && p.opts.Now().Sub(p.startedAt) < cfg.waitForService {
		return reply{}, errNotReady
	}
	route, ok := p.routes.TopicRoute(topic)
	if !ok {
		return reply{}, topicNotExistError{topic}
	}
	if cfg.orderMessageEnable {
		route.OrderTopicConf, _ = p.kv.Get(NamespaceOrderTopicConfig, topic)
	}
	data, err := route.Encode()
	if err != nil {
		return reply{}, fmt.Errorf("encode route: %w", err)
	}
	return reply{body: data}, nil
}

func (p *processor) getBrokerClusterInfo(_ *remoting.Conn, _ *protocol.Command) (reply, error) {
	return encodeBody(p.routes.ClusterInfo())
}

func (p *processor) getAllTopicList(_ *remoting.Conn, _ *protocol.Command) (reply, error) {
	if !p.live.get().enableAllTopicList {
		return reply{}, errAllTopicsDisabled
	}
	return encodeBody(body.TopicList{TopicList: p.routes.Topics()})
}

func (p *processor) getTopicsByCluster(_ *remoting.Conn, req *protocol.Command) (reply, error) {
	var h protocol.GetTopicsByClusterRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return reply{}, err
	}
	if !p.live.get().enableTopicList {
		return reply{}, errAllTopicsDisabled
	}
	if err := validateBrokerName("cluster", h.Cluster); err != nil {
		return reply{}, err
	}
	return encodeBody(body.TopicList{TopicList: p.routes.TopicsByCluster(h.Cluster)})
}

func (p *processor) deleteTopicInNamesrv(_ *remoting.Conn, req *protocol.Command) (reply, error) {
	var h protocol.DeleteTopicFromNamesrvRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return reply{}, err
	}
	if err := validateTopic(h.Topic); err != nil {
		return reply{}, err
	}
	if err := validateOptionalBrokerName("clusterName", h.ClusterName.V); err != nil {
		return reply{}, err
	}
	p.routes.DeleteTopic(h.Topic, h.ClusterName.V)
	p.lg.Info("topic deleted", zap.String("topic", h.Topic), zap.String("cluster", h.ClusterName.V))
	return reply{}, nil
}

func (p *processor) putKVConfig(_ *remoting.Conn, req *protocol.Command) (reply, error) {
	var h protocol.PutKVConfigRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return reply{}, err
	}
	if err := validateKVName(h.Namespace, h.Key, true); err != nil {
		return reply{}, err
	}
	return reply{}, p.kv.Put(h.Namespace, h.Key, h.Value)
}

func (p *processor) getKVConfig(_ *remoting.Conn, req *protocol.Command) (reply, error) {
	var h protocol.GetKVConfigRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return reply{}, err
	}
	if err := validateKVName(h.Namespace, h.Key, true); err != nil {
		return reply{}, err
	}
	v, ok := p.kv.Get(h.Namespace, h.Key)
	if !ok {
		return reply{}, kvNotFoundError{h.Namespace, h.Key}
	}
	return reply{header: &protocol.GetKVConfigResponseHeader{Value: protocol.Some(v)}}, nil
}

func (p *processor) deleteKVConfig(_ *remoting.Conn, req *protocol.Command) (reply, error) {
	var h protocol.DeleteKVConfigRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return reply{}, err
	}
	if err := validateKVName(h.Namespace, h.Key, true); err != nil {
		return reply{}, err
	}
	return reply{}, p.kv.Delete(h.Namespace, h.Key)
}

func (p *processor) getKVListByNamespace(_ *remoting.Conn, req *protocol.Command) (reply, error) {
	var h protocol.GetKVListByNamespaceRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return reply{}, err
	}
	if err := validateKVName(h.Namespace, "", false); err != nil {
		return reply{}, err
	}
	table, ok := p.kv.List(h.Namespace)
	if !ok {
		return reply{}, kvNotFoundError{namespace: h.Namespace}
	}
	return encodeBody(body.KVTable{Table: table})
}
