package namesrv

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
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

type badBodyError struct{ err error }

func (e badBodyError) Error() string { return "bad body: " + e.err.Error() }
func (e badBodyError) Unwrap() error { return e.err }

// responseFor maps a handler's error to RocketMQ's response code and remark.
func responseFor(err error) (protocol.ResponseCode, string) {
	var notExist topicNotExistError
	var kvMissing kvNotFoundError
	switch {
	case errors.As(err, &notExist):
		return protocol.TopicNotExist, err.Error()
	case errors.As(err, &kvMissing):
		return protocol.QueryNotFound, err.Error()
	default:
		// Header and body errors, CRC mismatch, not ready, disabled listing, persistence failures:
		// Java answers all of these with SYSTEM_ERROR and the reason.
		return protocol.SystemError, err.Error()
	}
}

// reply is a successful answer's content.
type reply struct {
	ext  map[string]string
	body []byte
}

type handleFunc func(c *remoting.Conn, req *protocol.Command) (reply, error)

// processor holds the request handlers of the name server (Java DefaultRequestProcessor).
type processor struct {
	opts      Options
	lg        *zap.Logger
	routes    *RouteInfoManager
	kv        *KVConfig
	startedAt time.Time
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
	}
}

// serve adapts a handleFunc to remoting.Handler, turning its outcome into a response.
func (p *processor) serve(code protocol.RequestCode, fn handleFunc) remoting.Handler {
	return remoting.HandlerFunc(func(_ context.Context, c *remoting.Conn, req *protocol.Command) *protocol.Command {
		r, err := fn(c, req)
		if err != nil {
			rc, remark := responseFor(err)
			if rc == protocol.SystemError {
				p.lg.Warn("request failed", zap.Stringer("code", code), zap.Error(err))
			}
			return protocol.NewResponse(req, rc, remark)
		}
		resp := protocol.NewResponse(req, protocol.Success, "")
		resp.ExtFields = r.ext
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
	f := protocol.Fields(req)
	reg := BrokerRegistration{
		BrokerName:         f.String("brokerName"),
		BrokerAddr:         f.String("brokerAddr"),
		ClusterName:        f.String("clusterName"),
		HAServerAddr:       f.String("haServerAddr"),
		BrokerID:           f.Int64("brokerId"),
		Timeout:            time.Duration(f.OptInt64("heartbeatTimeoutMillis", 0)) * time.Millisecond,
		EnableActingMaster: f.OptBool("enableActingMaster", false),
		ZoneName:           f.OptString("__ZONE_NAME", ""),
		Conn:               c,
	}
	compressed := f.OptBool("compressed", false)
	crc := f.OptInt64("bodyCrc32", 0)
	if err := f.Err(); err != nil {
		return reply{}, err
	}
	if crc != 0 && crc != int64(crc32.ChecksumIEEE(req.Body)&0x7FFFFFFF) {
		return reply{}, errCRCMismatch
	}
	rb, err := body.DecodeRegisterBrokerBody(req.Body, compressed)
	if err != nil {
		return reply{}, badBodyError{err}
	}
	reg.Topics = &rb.TopicConfigSerializeWrapper
	reg.FilterServers = rb.FilterServerList
	res := p.routes.RegisterBroker(reg)

	r := reply{ext: map[string]string{}}
	if res.MasterAddr != "" {
		r.ext["masterAddr"] = res.MasterAddr
	}
	if res.HAServerAddr != "" {
		r.ext["haServerAddr"] = res.HAServerAddr
	}
	if p.opts.ReturnOrderTopicConfigToBroker {
		if table, ok := p.kv.List(NamespaceOrderTopicConfig); ok {
			if r.body, err = body.Marshal(body.KVTable{Table: table}); err != nil {
				return reply{}, err
			}
		}
	}
	return r, nil
}

// brokerIdentity reads the four fields UNREGISTER_BROKER and QUERY_DATA_VERSION share.
func brokerIdentity(req *protocol.Command) (cluster, name, addr string, id int64, err error) {
	f := protocol.Fields(req)
	name = f.String("brokerName")
	addr = f.String("brokerAddr")
	cluster = f.String("clusterName")
	id = f.Int64("brokerId")
	return cluster, name, addr, id, f.Err()
}

func (p *processor) unregisterBroker(_ *remoting.Conn, req *protocol.Command) (reply, error) {
	cluster, name, addr, id, err := brokerIdentity(req)
	if err != nil {
		return reply{}, err
	}
	p.routes.UnregisterBroker(cluster, name, addr, id)
	p.lg.Info("broker unregistered", zap.String("cluster", cluster), zap.String("brokerName", name),
		zap.String("brokerAddr", addr), zap.Int64("brokerId", id))
	return reply{}, nil
}

func (p *processor) queryDataVersion(_ *remoting.Conn, req *protocol.Command) (reply, error) {
	_, _, addr, _, err := brokerIdentity(req)
	if err != nil {
		return reply{}, err
	}
	dv, err := body.DecodeDataVersion(req.Body)
	if err != nil {
		return reply{}, badBodyError{err}
	}
	changed, current := p.routes.QueryDataVersion(addr, *dv)
	r := reply{ext: map[string]string{"changed": strconv.FormatBool(changed)}}
	if current != nil {
		if r.body, err = body.Marshal(current); err != nil {
			return reply{}, err
		}
	}
	return r, nil
}

func (p *processor) getRouteInfoByTopic(_ *remoting.Conn, req *protocol.Command) (reply, error) {
	f := protocol.Fields(req)
	topic := f.String("topic")
	if err := f.Err(); err != nil {
		return reply{}, err
	}
	if p.opts.NeedWaitForService && p.opts.Now().Sub(p.startedAt) < p.opts.WaitForService {
		return reply{}, errNotReady
	}
	route, ok := p.routes.TopicRoute(topic)
	if !ok {
		return reply{}, topicNotExistError{topic}
	}
	if p.opts.OrderMessageEnable {
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
	if !p.opts.EnableAllTopicList {
		return reply{}, errAllTopicsDisabled
	}
	return encodeBody(body.TopicList{TopicList: p.routes.Topics()})
}

func (p *processor) getTopicsByCluster(_ *remoting.Conn, req *protocol.Command) (reply, error) {
	f := protocol.Fields(req)
	cluster := f.String("cluster")
	if err := f.Err(); err != nil {
		return reply{}, err
	}
	if !p.opts.EnableTopicList {
		return reply{}, errAllTopicsDisabled
	}
	return encodeBody(body.TopicList{TopicList: p.routes.TopicsByCluster(cluster)})
}

func (p *processor) deleteTopicInNamesrv(_ *remoting.Conn, req *protocol.Command) (reply, error) {
	f := protocol.Fields(req)
	topic := f.String("topic")
	cluster := f.OptString("clusterName", "")
	if err := f.Err(); err != nil {
		return reply{}, err
	}
	p.routes.DeleteTopic(topic, cluster)
	p.lg.Info("topic deleted", zap.String("topic", topic), zap.String("cluster", cluster))
	return reply{}, nil
}

func (p *processor) putKVConfig(_ *remoting.Conn, req *protocol.Command) (reply, error) {
	f := protocol.Fields(req)
	ns, key, value := f.String("namespace"), f.String("key"), f.String("value")
	if err := f.Err(); err != nil {
		return reply{}, err
	}
	return reply{}, p.kv.Put(ns, key, value)
}

func (p *processor) getKVConfig(_ *remoting.Conn, req *protocol.Command) (reply, error) {
	f := protocol.Fields(req)
	ns, key := f.String("namespace"), f.String("key")
	if err := f.Err(); err != nil {
		return reply{}, err
	}
	v, ok := p.kv.Get(ns, key)
	if !ok {
		return reply{}, kvNotFoundError{ns, key}
	}
	return reply{ext: map[string]string{"value": v}}, nil
}

func (p *processor) deleteKVConfig(_ *remoting.Conn, req *protocol.Command) (reply, error) {
	f := protocol.Fields(req)
	ns, key := f.String("namespace"), f.String("key")
	if err := f.Err(); err != nil {
		return reply{}, err
	}
	return reply{}, p.kv.Delete(ns, key)
}

func (p *processor) getKVListByNamespace(_ *remoting.Conn, req *protocol.Command) (reply, error) {
	f := protocol.Fields(req)
	ns := f.String("namespace")
	if err := f.Err(); err != nil {
		return reply{}, err
	}
	table, ok := p.kv.List(ns)
	if !ok {
		return reply{}, kvNotFoundError{namespace: ns}
	}
	return encodeBody(body.KVTable{Table: table})
}
