package processor

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// configBlackList are the keys Java never lets UPDATE_BROKER_CONFIG touch (AdminBrokerProcessor's
// fixed entries and BrokerConfig.configBlackList's default).
var configBlackList = []string{"brokerConfigPath", "rocketmqHome", "configBlackList"}

// getBrokerConfig answers the broker's effective configuration as Java-properties text, one
// key=value line per key, with ext version = the configuration's DataVersion JSON
// (GET_BROKER_CONFIG).
func (p *Processor) getBrokerConfig(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	version, err := body.Marshal(p.configVersion())
	if err != nil {
		return nil, err
	}
	resp := success(req)
	resp.SetExt("version", string(version))
	if text := p.configText(); text != "" {
		resp.Body = []byte(text)
	}
	return resp, nil
}

// configVersion is the configuration's DataVersion. The configuration never changes while the
// broker runs (see updateBrokerConfig), so it is the one it started with.
func (p *Processor) configVersion() body.DataVersion { return body.NewDataVersion(p.opts.BootTime) }

// configText is Options.ConfigText's text, or, for a broker built without it (embedded, tests),
// the keys these options hold.
func (p *Processor) configText() string {
	if p.opts.ConfigText != nil {
		return p.opts.ConfigText()
	}
	o := p.opts
	kv := map[string]string{
		"brokerClusterName":     o.ClusterName,
		"brokerName":            o.BrokerName,
		"brokerId":              itoa64(o.BrokerID),
		"brokerPermission":      strconv.Itoa(o.BrokerPermission),
		"maxMessageSize":        strconv.Itoa(o.MaxMessageSize),
		"regionId":              o.RegionID,
		"traceOn":               strconv.FormatBool(o.TraceOn),
		"longPollingEnable":     strconv.FormatBool(o.LongPollingEnable),
		"shortPollingTimeMills": itoa64(o.ShortPollingTime.Milliseconds()),
		"slaveReadEnable":       strconv.FormatBool(o.SlaveReadEnable),
		"enablePropertyFilter":  strconv.FormatBool(o.EnablePropertyFilter),
		"defaultQueryMaxNum":    strconv.Itoa(o.DefaultQueryMaxNum),
	}
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + kv[k] + "\n")
	}
	return b.String()
}

// updateBrokerConfig is UPDATE_BROKER_CONFIG. Java applies the properties in the body at run time
// and rewrites broker.conf; this broker does not change its configuration while it runs. The
// answer is therefore SUCCESS only when nothing would change (an empty body, or every key either
// unknown — Java ignores those too — or already at the value given); black-listed keys are refused
// with NO_PERMISSION as in Java; anything else is SYSTEM_ERROR naming the keys, to be changed in
// broker.conf followed by a restart.
func (p *Processor) updateBrokerConfig(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	if len(req.Body) == 0 {
		return success(req), nil
	}
	props := parseProperties(string(req.Body))
	for _, k := range configBlackList {
		if _, ok := props[k]; ok {
			return nil, fail(protocol.NoPermission, "Can not update config in black list.")
		}
	}
	current := parseProperties(p.configText())
	var changed []string
	for k, v := range props {
		if cur, known := current[k]; known && cur != v {
			changed = append(changed, k+"="+v)
		}
	}
	if len(changed) == 0 {
		return success(req), nil
	}
	sort.Strings(changed)
	p.lg.Warn("refused a runtime broker configuration update", zap.Strings("changes", changed), zap.String("from", remoteAddr(c)))
	return nil, fail(protocol.SystemError,
		"updating the broker configuration at run time is not supported (%s): change broker.conf and restart the broker",
		strings.Join(changed, ", "))
}

// parseProperties reads Java-properties text as far as key/value pairs go: one pair per line,
// the key ending at the first '=', ':' or blank, surrounding blanks trimmed; '#' and '!' start
// comment lines. Line continuations and escapes are not interpreted.
func parseProperties(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		end := strings.IndexAny(line, "=: \t\f")
		if end < 0 {
			out[line] = ""
			continue
		}
		key, rest := line[:end], strings.TrimLeft(line[end:], " \t\f")
		if rest != "" && (rest[0] == '=' || rest[0] == ':') {
			rest = strings.TrimLeft(rest[1:], " \t\f")
		}
		out[key] = rest
	}
	return out
}
