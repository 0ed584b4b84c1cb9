// Package configview shows admin tools the broker's effective configuration as Java-properties
// text with its data version (GET_BROKER_CONFIG), and applies the keys that may change while the
// broker runs (UPDATE_BROKER_CONFIG). Keys that name a path, and the keys Java black-lists, are
// never changed (the CVE-2023-33246 class of attacks sets rocketmqHome or filterServerNums);
// other keys take effect at start-up only and are refused, naming them.
package configview

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// blackList are the keys UPDATE_BROKER_CONFIG never touches, lower-cased: Java's fixed entries
// and BrokerConfig.configBlackList's default, and filterServerNums, which makes a 4.x broker run
// a script from rocketmqHome. Any key naming a path or directory is refused too (blackListed).
var blackList = []string{"brokerconfigpath", "rocketmqhome", "configblacklist", "filterservernums"}

// RuntimeKey is a key that may change while the broker runs: it checks a value and returns what
// applies it.
type RuntimeKey func(value string) (apply func(), err error)

// Options say what the configuration is.
type Options struct {
	// Text returns the effective configuration as key=value lines; nil uses Keys.
	Text func() string
	// Keys are the key/value pairs shown when Text is nil (an embedded broker, tests).
	Keys map[string]string
	// BootTime is when the broker started: the configuration's first version.
	BootTime time.Time
	// Runtime are the keys UPDATE_BROKER_CONFIG applies, by name.
	Runtime map[string]RuntimeKey
}

// Service shows the configuration and changes its runtime keys.
type Service struct {
	opts Options
	lg   *zap.Logger
	now  func() time.Time

	mu        sync.Mutex // serializes updates; guards the two fields below
	overrides map[string]string
	version   body.DataVersion
}

// New returns a Service.
func New(opts Options, lg *zap.Logger) *Service {
	if lg == nil {
		lg = zap.NewNop()
	}
	return &Service{opts: opts, lg: lg, now: time.Now, overrides: map[string]string{},
		version: body.NewDataVersion(opts.BootTime)}
}

// Version is the configuration's DataVersion: the start-up one, moved on by every update that
// changed something.
func (s *Service) Version() body.DataVersion {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// Text is the configuration as Java-properties text, one key=value line per key, with the values
// changed at run time.
func (s *Service) Text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.textLocked()
}

func (s *Service) textLocked() string {
	var base string
	if s.opts.Text != nil {
		base = s.opts.Text()
	} else {
		var b strings.Builder
		for _, k := range slices.Sorted(maps.Keys(s.opts.Keys)) {
			b.WriteString(k + "=" + s.opts.Keys[k] + "\n")
		}
		base = b.String()
	}
	if len(s.overrides) == 0 {
		return base
	}
	lines := strings.SplitAfter(base, "\n")
	for i, line := range lines {
		if k, _ := splitProperty(strings.TrimSpace(line)); s.overrides[k] != "" {
			lines[i] = k + "=" + s.overrides[k] + "\n"
		}
	}
	return strings.Join(lines, "")
}

// Update applies Java-properties text at run time; from names the requester for the log. Keys the
// configuration does not have are ignored, as Java ignores them, and so are values already in
// effect. A black-listed key or one naming a path refuses the request with NoPermission, as Java
// answers; a changed key that takes effect at start-up only, or a bad value, refuses it with
// SystemError saying which. Nothing is applied unless everything can be. The change lasts until
// the broker restarts: broker.conf is not rewritten.
func (s *Service) Update(text, from string) error {
	props := ParseProperties(text)
	if k := blackListed(props); k != "" {
		s.lg.Warn("refused a runtime update of a black-listed broker configuration key", zap.String("key", k), zap.String("from", from))
		return outcome.Errorf(outcome.NoPermission, "Can not update config in black list.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := changes(ParseProperties(s.textLocked()), props)
	if len(changed) == 0 {
		return nil
	}
	applies, err := s.check(changed, props)
	if err != nil {
		s.lg.Warn("refused a runtime broker configuration update", zap.Strings("keys", changed), zap.Error(err), zap.String("from", from))
		return err
	}
	for i, k := range changed {
		applies[i]()
		s.overrides[k] = props[k]
	}
	s.version = s.version.Next(s.now())
	s.lg.Info("broker configuration updated at run time", zap.Strings("keys", changed), zap.String("from", from))
	return nil
}

// check parses every changed key's value and returns what applies each, or why not.
func (s *Service) check(changed []string, props map[string]string) ([]func(), error) {
	var startupOnly []string
	applies := make([]func(), 0, len(changed))
	for _, k := range changed {
		rk, ok := s.opts.Runtime[k]
		if !ok {
			startupOnly = append(startupOnly, k)
			continue
		}
		apply, err := rk(props[k])
		if err != nil {
			return nil, outcome.Errorf(outcome.SystemError, "bad value %q for %s: %v", props[k], k, err)
		}
		applies = append(applies, apply)
	}
	if len(startupOnly) > 0 {
		remark := strings.Join(startupOnly, ", ") + " take effect at start-up only: change broker.conf and restart the broker"
		if len(s.opts.Runtime) > 0 {
			remark += " (keys that change at run time: " + strings.Join(slices.Sorted(maps.Keys(s.opts.Runtime)), ", ") + ")"
		}
		return nil, outcome.Errorf(outcome.SystemError, "%s", remark)
	}
	return applies, nil
}

// blackListed is a key of props that must never change at run time, or "".
func blackListed(props map[string]string) string {
	for _, k := range slices.Sorted(maps.Keys(props)) {
		lk := strings.ToLower(k)
		if slices.Contains(blackList, lk) || strings.Contains(lk, "path") || strings.HasSuffix(lk, "dir") ||
			strings.HasSuffix(lk, "home") {
			return k
		}
	}
	return ""
}

// changes lists, sorted, the keys of props whose value would change a known key of current.
func changes(current, props map[string]string) []string {
	var changed []string
	for k, v := range props {
		if cur, known := current[k]; known && cur != v {
			changed = append(changed, k)
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

// BoolKey is a runtime key holding true or false (any case), applied by set.
func BoolKey(set func(bool)) RuntimeKey {
	return func(v string) (func(), error) {
		lv := strings.ToLower(v)
		if lv != "true" && lv != "false" {
			return nil, errors.New("want true or false")
		}
		b := lv == "true"
		return func() { set(b) }, nil
	}
}

// IntKey is a runtime key holding a whole number in [lo, hi], applied by set.
func IntKey(lo, hi int, set func(int)) RuntimeKey {
	return func(v string) (func(), error) {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return nil, fmt.Errorf("want a whole number %d-%d", lo, hi)
		}
		return func() { set(n) }, nil
	}
}
