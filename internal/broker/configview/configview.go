// Package configview shows admin tools the broker's effective configuration as Java-properties
// text with its data version (GET_BROKER_CONFIG), and answers requests to change it at run time
// (UPDATE_BROKER_CONFIG), which this broker refuses: its configuration is broker.conf's, changed
// by a restart.
package configview

import (
	"maps"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// blackList are the keys Java never lets UPDATE_BROKER_CONFIG touch (AdminBrokerProcessor's
// fixed entries and BrokerConfig.configBlackList's default).
var blackList = []string{"brokerConfigPath", "rocketmqHome", "configBlackList"}

// Options say what the configuration is.
type Options struct {
	// Text returns the effective configuration as key=value lines; nil uses Keys.
	Text func() string
	// Keys are the key/value pairs shown when Text is nil (an embedded broker, tests).
	Keys map[string]string
	// BootTime is when the broker started: the configuration's version.
	BootTime time.Time
}

// Service shows the configuration.
type Service struct {
	opts Options
	lg   *zap.Logger
}

// New returns a Service.
func New(opts Options, lg *zap.Logger) *Service {
	if lg == nil {
		lg = zap.NewNop()
	}
	return &Service{opts: opts, lg: lg}
}

// Version is the configuration's DataVersion. The configuration never changes while the broker
// runs (see Update), so it is the one it started with.
func (s *Service) Version() body.DataVersion { return body.NewDataVersion(s.opts.BootTime) }

// Text is the configuration as Java-properties text, one key=value line per key.
func (s *Service) Text() string {
	if s.opts.Text != nil {
		return s.opts.Text()
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(s.opts.Keys)) {
		b.WriteString(k + "=" + s.opts.Keys[k] + "\n")
	}
	return b.String()
}

// Update answers a request to apply the Java-properties text at run time; from names the
// requester for the log. Java applies it and rewrites broker.conf; this broker succeeds only when
// nothing would change (empty text, or every key unknown — Java ignores those too — or already
// at the value given). Black-listed keys are NoPermission as in Java; anything else is
// SystemError naming the keys, to be changed in broker.conf followed by a restart.
func (s *Service) Update(text, from string) error {
	if text == "" {
		return nil
	}
	props := ParseProperties(text)
	for _, k := range blackList {
		if _, ok := props[k]; ok {
			return outcome.Errorf(outcome.NoPermission, "Can not update config in black list.")
		}
	}
	changed := changes(ParseProperties(s.Text()), props)
	if len(changed) == 0 {
		return nil
	}
	s.lg.Warn("refused a runtime broker configuration update", zap.Strings("changes", changed), zap.String("from", from))
	return outcome.Errorf(outcome.SystemError,
		"updating the broker configuration at run time is not supported (%s): change broker.conf and restart the broker",
		strings.Join(changed, ", "))
}

// changes lists, sorted, the key=value pairs of props that would change a known key of current.
func changes(current, props map[string]string) []string {
	var changed []string
	for k, v := range props {
		if cur, known := current[k]; known && cur != v {
			changed = append(changed, k+"="+v)
		}
	}
	slices.Sort(changed)
	return changed
}

// ParseProperties reads Java-properties text as far as key/value pairs go: one pair per line,
// the key ending at the first '=', ':' or blank, surrounding blanks trimmed; '#' and '!' start
// comment lines. Line continuations and escapes are not interpreted.
func ParseProperties(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		key, value := splitProperty(line)
		out[key] = value
	}
	return out
}

// splitProperty splits one non-comment line into its key and value.
func splitProperty(line string) (string, string) {
	end := strings.IndexAny(line, "=: \t\f")
	if end < 0 {
		return line, ""
	}
	key, rest := line[:end], strings.TrimLeft(line[end:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	return key, rest
}
