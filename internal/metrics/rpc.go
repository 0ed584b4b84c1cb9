package metrics

import (
	"fmt"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// RPCResult is the result label of rocketmq_rpc_latency.
type RPCResult uint8

// RPC results, named as RocketMQ 5 names them.
const (
	RPCSuccess       RPCResult = iota // response written
	RPCOneway                         // oneway request, nothing written
	RPCCancelled                      // write cancelled
	RPCProcessFailed                  // the handler failed before producing a response
	RPCWriteFailed                    // writing the response failed
	numRPCResults
)

func (r RPCResult) String() string {
	switch r {
	case RPCSuccess:
		return "success"
	case RPCOneway:
		return "oneway"
	case RPCCancelled:
		return "cancelled"
	case RPCProcessFailed:
		return "process_request_failed"
	case RPCWriteFailed:
		return "write_channel_failed"
	}
	return "unknown"
}

// RPCLatencyBuckets are RocketMQ 5's rpc latency buckets, in milliseconds.
var rpcLatencyBuckets = []float64{1, 3, 5, 7, 10, 100, 1000, 2000, 3000}

// RPCOptions name request and response codes for the request_code and response_code labels.
// RocketMQ uses the lower-case constant name ("send_message", "success"); nil uses the number.
type RPCOptions struct {
	RequestCodeName  func(code int32) string
	ResponseCodeName func(code int32) string
}

// rpcKey identifies one series of rocketmq_rpc_latency.
type rpcKey struct {
	code, respCode int32
	result         RPCResult
	longPolling    bool
}

// RPC is rocketmq_rpc_latency_milliseconds (RocketMQ 5's rocketmq_rpc_latency with the unit suffix
// its exporter appends): the time from reading a request to writing its response.
type RPC struct {
	hist     *prometheus.HistogramVec
	reqName  func(int32) string
	respName func(int32) string

	children cowMap[rpcKey, prometheus.Observer]
}

// NewRPC registers rocketmq_rpc_latency_milliseconds on reg.
func NewRPC(reg prometheus.Registerer, labels Labels, opts RPCOptions) (*RPC, error) {
	r := newRPC(labels, opts)
	if err := reg.Register(r.hist); err != nil {
		return nil, fmt.Errorf("metrics: register rpc latency: %w", err)
	}
	return r, nil
}

func newRPC(labels Labels, opts RPCOptions) *RPC {
	r := &RPC{
		hist: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:        "rocketmq_rpc_latency_milliseconds",
			Help:        "Remoting request latency in milliseconds, from request read to response written.",
			Buckets:     rpcLatencyBuckets,
			ConstLabels: labels.constLabels(),
		}, []string{"protocol_type", "request_code", "response_code", "is_long_polling", "result"}),
		reqName:  opts.RequestCodeName,
		respName: opts.ResponseCodeName,
	}
	if r.reqName == nil {
		r.reqName = codeNumber
	}
	if r.respName == nil {
		r.respName = codeNumber
	}
	return r
}

func codeNumber(c int32) string { return strconv.Itoa(int(c)) }

// Observe records a successful request (the response was written).
func (r *RPC) Observe(code, respCode int32, d time.Duration, longPolling bool) {
	r.ObserveResult(code, respCode, d, longPolling, RPCSuccess)
}

// ObserveResult records one request with its result.
func (r *RPC) ObserveResult(code, respCode int32, d time.Duration, longPolling bool, result RPCResult) {
	if r == nil {
		return
	}
	if result >= numRPCResults {
		result = RPCProcessFailed
	}
	key := rpcKey{code: code, respCode: respCode, result: result, longPolling: longPolling}
	o, ok := r.children.load(key)
	if !ok {
		o = r.children.loadOrCreate(key, func() prometheus.Observer {
			return r.hist.WithLabelValues(protocolRemoting, validUTF8(r.reqName(code)),
				validUTF8(r.respName(respCode)), boolLabel(longPolling), result.String())
		})
	}
	o.Observe(float64(d) / float64(time.Millisecond))
}
