package send

import (
	"strconv"
	"strings"
	"unsafe"

	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// brokerProps are the properties the broker writes on every message it stores, whatever the
// producer sent for them: MSG_REGION and TRACE_ON (Apache's AbstractSendMessageProcessor puts them
// on the request's properties; 5.x consume traces take the region from there) and CLUSTER (Apache's
// SendMessageProcessor; request-reply answers to the cluster's reply topic named by it).
var brokerProps = [...]string{message.PropertyMsgRegion, message.PropertyTraceSwitch, message.PropertyCluster}

// stampSuffix is the encoding of the broker's properties, appended to every stored message.
func stampSuffix(o Options) string {
	var b []byte
	if o.RegionID != "" {
		b = message.AppendProperty(b, message.PropertyMsgRegion, o.RegionID)
	}
	b = message.AppendProperty(b, message.PropertyTraceSwitch, strconv.FormatBool(o.TraceOn))
	if o.ClusterName != "" {
		b = message.AppendProperty(b, message.PropertyCluster, o.ClusterName)
	}
	return string(b)
}

// stamp returns props as the broker stores them: the producer's properties without any of
// brokerProps, a UNIQ_KEY when they have none (ali-ons and the Go client's batches send none),
// then the broker's own properties. One allocation: the text is built in a buffer sized for it
// and the string is that buffer (nothing else refers to it, nothing changes it after); no parsing
// into a map.
func (s *Service) stamp(props string) string {
	_, hasUniq := message.LookupPropertyString(props, message.PropertyUniqClientMessageID)
	buf := make([]byte, 0, len(props)+len(s.suffix)+uniqRoom)
	buf = appendWithout(buf, props)
	if !hasUniq {
		buf = append(buf, message.PropertyUniqClientMessageID...)
		buf = append(buf, message.NameValueSeparator)
		buf = s.uniq.Append(buf)
		buf = append(buf, message.PropertySeparator)
	}
	buf = append(buf, s.suffix...)
	return unsafe.String(unsafe.SliceData(buf), len(buf))
}

// uniqRoom is room enough for a separator, a UNIQ_KEY pair and the separator that may be added.
const uniqRoom = 64

// appendWithout appends props to dst, ending with a separator, leaving out the pairs whose key
// is one of brokerProps. Props that have none of them are copied whole.
func appendWithout(dst []byte, props string) []byte {
	if !hasBrokerProp(props) {
		dst = append(dst, props...)
	} else {
		for pair := range strings.SplitSeq(props, string(message.PropertySeparator)) {
			if pair != "" && !isBrokerProp(pair) {
				dst = append(append(dst, pair...), message.PropertySeparator)
			}
		}
	}
	if len(dst) > 0 && dst[len(dst)-1] != message.PropertySeparator {
		dst = append(dst, message.PropertySeparator)
	}
	return dst
}

func hasBrokerProp(props string) bool {
	for _, k := range brokerProps {
		if strings.Contains(props, k) {
			return true
		}
	}
	return false
}

// isBrokerProp reports whether one key\x01value pair has a key of brokerProps.
func isBrokerProp(pair string) bool {
	k, _, _ := strings.Cut(pair, string(message.NameValueSeparator))
	for _, b := range brokerProps {
		if k == b {
			return true
		}
	}
	return false
}
