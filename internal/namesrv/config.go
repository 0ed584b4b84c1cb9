package namesrv

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// ConfigKey is one key of namesrv.conf with its effective value, as GET_NAMESRV_CONFIG shows it.
type ConfigKey struct {
	Name  string
	Value string
}

// DefaultConfigBlackList is configBlackList's default (Java NamesrvConfig).
const DefaultConfigBlackList = "configBlackList;configStorePath;kvConfigPath"

// fixedBlackList are the keys UPDATE_NAMESRV_CONFIG never changes, whatever configBlackList says
// (Java's DefaultRequestProcessor adds these to it). Since CVE-2023-37582 a request may not name
// where a file is written.
var fixedBlackList = []string{"configBlackList", "configStorePath", "kvConfigPath", "rocketmqHome"}

// errBlackListed refuses an update that names a black-listed key (NO_PERMISSION, with Java's
// remark).
var errBlackListed = errors.New("Can not update config in black list.") //nolint:staticcheck // Java's remark, verbatim

// configRefusedError is an update naming keys that cannot change while the server runs, or with
// a value they cannot take.
type configRefusedError struct{ problems []string }

// maxProblems bounds the problems a refusal names.
const maxProblems = 8

func (e configRefusedError) Error() string {
	shown := e.problems
	if len(shown) > maxProblems {
		shown = append(slices.Clone(shown[:maxProblems]), fmt.Sprintf("%d more", len(e.problems)-maxProblems))
	}
	return "name server configuration not updated: " + strings.Join(shown, "; ") +
		" (the keys that change at run time: " + strings.Join(runtimeKeyNames(), ", ") +
		"; any other key: change namesrv.conf and restart the name server)"
}

// runtimeConfig is what UPDATE_NAMESRV_CONFIG may change while the server runs: the keys the
// request handlers read on every request. Everything else (listeners, paths, limits, allowlists,
// TLS, metrics) is fixed at start.
type runtimeConfig struct {
	orderMessageEnable                bool
	returnOrderTopicConfigToBroker    bool
	enableAllTopicList                bool
	enableTopicList                   bool
	needWaitForService                bool
	waitForService                    time.Duration
	deleteTopicWithBrokerRegistration bool
}

// runtimeKey is one key of runtimeConfig under its namesrv.conf name.
type runtimeKey struct {
	name string
	get  func(*runtimeConfig) string
	set  func(*runtimeConfig, string) error
}

func boolKey(name string, field func(*runtimeConfig) *bool) runtimeKey {
	return runtimeKey{name: name,
		get: func(c *runtimeConfig) string { return strconv.FormatBool(*field(c)) },
		set: func(c *runtimeConfig, v string) error {
			switch strings.ToLower(v) {
			case "true":
				*field(c) = true
			case "false":
				*field(c) = false
			default:
				return fmt.Errorf("%s=%s: want true or false", name, quoteName(v))
			}
			return nil
		}}
}

// runtimeKeys lists the keys of runtimeConfig.
func runtimeKeys() []runtimeKey {
	return []runtimeKey{
		boolKey("orderMessageEnable", func(c *runtimeConfig) *bool { return &c.orderMessageEnable }),
		boolKey("returnOrderTopicConfigToBroker", func(c *runtimeConfig) *bool { return &c.returnOrderTopicConfigToBroker }),
		boolKey("enableAllTopicList", func(c *runtimeConfig) *bool { return &c.enableAllTopicList }),
		boolKey("enableTopicList", func(c *runtimeConfig) *bool { return &c.enableTopicList }),
		boolKey("needWaitForService", func(c *runtimeConfig) *bool { return &c.needWaitForService }),
		boolKey("deleteTopicWithBrokerRegistration", func(c *runtimeConfig) *bool { return &c.deleteTopicWithBrokerRegistration }),
		{name: "waitSecondsForService",
			get: func(c *runtimeConfig) string { return strconv.FormatInt(int64(c.waitForService/time.Second), 10) },
			set: func(c *runtimeConfig, v string) error {
				n, err := strconv.ParseInt(v, 10, 32)
				if err != nil || n < 0 {
					return fmt.Errorf("waitSecondsForService=%s: want a number of seconds, 0 or more", quoteName(v))
				}
				c.waitForService = time.Duration(n) * time.Second
				return nil
			}},
	}
}

func runtimeKeyNames() []string {
	var names []string
	for _, k := range runtimeKeys() {
		names = append(names, k.name)
	}
	return names
}

// liveConfig holds the name server's configuration for GET_NAMESRV_CONFIG and
// UPDATE_NAMESRV_CONFIG: the keys fixed at start, and runtimeConfig, which an update replaces as a
// whole. Updates last until the server stops; nothing is written to disk (Java writes them to
// configStorePath, which it then never reads).
type liveConfig struct {
	static    []ConfigKey // Options.ConfigKeys
	blackList []string    // fixedBlackList and Options.ConfigBlackList, lower case
	onChange  func(runtimeConfig)

	mu  sync.RWMutex
	cur runtimeConfig // GUARDED_BY(mu)
}

func newLiveConfig(o Options, onChange func(runtimeConfig)) *liveConfig {
	static := o.ConfigKeys
	if static == nil {
		static = optionKeys(o)
	}
	lc := &liveConfig{static: static, onChange: onChange, cur: runtimeConfig{
		orderMessageEnable:                o.OrderMessageEnable,
		returnOrderTopicConfigToBroker:    o.ReturnOrderTopicConfigToBroker,
		enableAllTopicList:                o.EnableAllTopicList,
		enableTopicList:                   o.EnableTopicList,
		needWaitForService:                o.NeedWaitForService,
		waitForService:                    o.WaitForService,
		deleteTopicWithBrokerRegistration: o.DeleteTopicWithBrokerRegistration,
	}}
	for _, k := range append(slices.Clone(fixedBlackList), o.ConfigBlackList...) {
		if k = strings.TrimSpace(k); k != "" {
			lc.blackList = append(lc.blackList, strings.ToLower(k))
		}
	}
	return lc
}

// optionKeys are the keys fixed at start that o says, for a server whose Options.ConfigKeys
// were not filled (embedded, tests).
func optionKeys(o Options) []ConfigKey {
	keys := []ConfigKey{{"kvConfigPath", o.KVConfigPath},
		{"scanNotActiveBrokerInterval", strconv.FormatInt(o.ScanNotActiveBrokerInterval.Milliseconds(), 10)},
		{"brokerChannelExpiredTime", strconv.FormatInt(o.BrokerChannelExpiredTime.Milliseconds(), 10)}}
	if host, port, err := net.SplitHostPort(o.ListenAddr); err == nil {
		keys = append(keys, ConfigKey{"bindAddress", host}, ConfigKey{"listenPort", port})
	}
	return keys
}

// get returns the current run-time configuration.
func (lc *liveConfig) get() runtimeConfig {
	lc.mu.RLock()
	defer lc.mu.RUnlock()
	return lc.cur
}

// text is GET_NAMESRV_CONFIG's body: every key of namesrv.conf with its current value, sorted,
// as key=value lines.
func (lc *liveConfig) text() string {
	cur := lc.get()
	values := map[string]string{}
	for _, k := range lc.static {
		values[k.Name] = k.Value
	}
	for _, k := range runtimeKeys() {
		values[k.name] = k.get(&cur)
	}
	props := make([]body.Property, 0, len(values))
	for _, name := range slices.Sorted(maps.Keys(values)) {
		props = append(props, body.Property{Key: name, Value: values[name]})
	}
	return body.EncodeProperties(props)
}

// update applies an UPDATE_NAMESRV_CONFIG body: all of it or nothing. A black-listed key refuses
// the whole request with errBlackListed, as in Java. A run-time key takes its new value; any
// other key must already have the value given (Java would set it on its config object and then
// not use it until a restart; an unknown key Java ignores). Keys match case-insensitively, as
// namesrv.conf's do. It returns the keys changed, as key=value.
func (lc *liveConfig) update(props []body.Property) ([]string, error) {
	for _, p := range props {
		if slices.Contains(lc.blackList, strings.ToLower(p.Key)) {
			return nil, errBlackListed
		}
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	next := lc.cur
	var changed, problems []string
	for _, p := range props {
		if k, ok := findRuntimeKey(p.Key); ok {
			if err := k.set(&next, strings.TrimSpace(p.Value)); err != nil {
				problems = append(problems, err.Error())
			} else if k.get(&next) != k.get(&lc.cur) {
				changed = append(changed, k.name+"="+k.get(&next))
			}
			continue
		}
		if problem := lc.staticProblem(p); problem != "" {
			problems = append(problems, problem)
		}
	}
	if len(problems) > 0 {
		return nil, configRefusedError{problems}
	}
	lc.cur = next
	if lc.onChange != nil {
		lc.onChange(next)
	}
	return changed, nil
}

// staticProblem says why a key that does not change at run time cannot take p's value, or ""
// when it already has it.
func (lc *liveConfig) staticProblem(p body.Property) string {
	for _, k := range lc.static {
		if strings.EqualFold(k.Name, p.Key) {
			if k.Value == strings.TrimSpace(p.Value) {
				return ""
			}
			return fmt.Sprintf("%s cannot change at run time", k.Name)
		}
	}
	return fmt.Sprintf("%s is not a name server key", quoteName(p.Key))
}

func findRuntimeKey(name string) (runtimeKey, bool) {
	for _, k := range runtimeKeys() {
		if strings.EqualFold(k.name, name) {
			return k, true
		}
	}
	return runtimeKey{}, false
}
