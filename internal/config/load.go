package config

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/viper"
	"go.uber.org/zap"
)

// ValueError is a key whose value cannot be used. Start-up stops on it.
type ValueError struct {
	Key    string // the Java key as RocketMQ spells it
	Value  string
	Source string // "broker.conf:12", "command line", "env NAMESRV_ADDR"; empty from Validate
	Reason string
}

func (e *ValueError) Error() string {
	if e.Source == "" {
		return fmt.Sprintf("config: %s=%q: %s", e.Key, e.Value, e.Reason)
	}
	return fmt.Sprintf("config: %s: %s=%q: %s", e.Source, e.Key, e.Value, e.Reason)
}

// propertiesCodec is the viper codec for Java-properties files (viper ≥ 1.20 ships none). It
// keeps what it parsed so that warnings and errors can name the key as written and its line.
type propertiesCodec struct {
	seen   map[string]Property // lower-case key → last occurrence
	broken []Property          // keys viper cannot hold (empty, or with the key delimiter)
}

const keyDelimiter = "\x00" // keys are flat; no RocketMQ key nests

func (c *propertiesCodec) Decode(b []byte, out map[string]any) error {
	props, err := ParseProperties(b)
	if err != nil {
		return err
	}
	c.seen = map[string]Property{}
	for _, p := range props {
		if p.Key == "" || strings.Contains(p.Key, keyDelimiter) {
			c.broken = append(c.broken, p)
			continue
		}
		lk := strings.ToLower(p.Key)
		c.seen[lk] = p
		out[lk] = p.Value
	}
	return nil
}

func (c *propertiesCodec) Encode(m map[string]any) ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", escapeProperty(k, true), escapeProperty(fmt.Sprint(m[k]), false))
	}
	return b.Bytes(), nil
}

// escapeProperty escapes s for a properties file, as Java's Properties.store does for ASCII.
func escapeProperty(s string, isKey bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '=', ':', '#', '!':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\f':
			b.WriteString(`\f`)
		case ' ':
			if isKey || i == 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// loader binds one file plus overrides onto a config struct.
type loader[C, T any] struct {
	sch        *schema[C, T]
	path       string
	overrides  map[string]string // from the command line; they win over the file
	defaults   map[string]string // lower-case key → value used when neither file nor override sets it
	defaultSrc map[string]string // lower-case key → where that default came from
	lg         *zap.Logger
}

// load fills dst (already holding the built-in defaults). It returns the lower-case keys that were
// set, and every bad value joined into one error.
func (l *loader[C, T]) load(dst *C) (map[string]bool, error) {
	codec := &propertiesCodec{}
	reg := viper.NewCodecRegistry()
	if err := reg.RegisterCodec("properties", codec); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	v := viper.NewWithOptions(viper.WithCodecRegistry(reg), viper.KeyDelimiter(keyDelimiter))
	v.SetConfigType("properties")
	if l.path != "" {
		data, err := os.ReadFile(l.path)
		if err != nil {
			return nil, fmt.Errorf("config: read %w", err)
		}
		if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("config: %s: %w", l.path, err)
		}
	}
	for k, val := range l.defaults {
		v.SetDefault(k, val)
	}
	var errs []error
	for k, val := range l.overrides {
		_, known := l.sch.byLower[strings.ToLower(k)]
		if _, old := l.sch.aliases[strings.ToLower(k)]; !known && !old {
			errs = append(errs, fmt.Errorf("config: command line: unknown key %q", k))
			continue
		}
		v.Set(k, val)
	}
	for _, p := range codec.broken {
		l.lg.Warn("config: unusable key ignored", zap.String("key", p.Key), zap.String("source", l.at(p.Line)))
	}

	// Old spellings first, so that the current spelling wins when a file has both.
	keys := v.AllKeys()
	sort.Slice(keys, func(i, j int) bool {
		_, ai := l.sch.aliases[keys[i]]
		_, aj := l.sch.aliases[keys[j]]
		if ai != aj {
			return ai
		}
		return keys[i] < keys[j]
	})
	set := map[string]bool{}
	for _, lk := range keys {
		written, source := l.origin(lk, codec)
		f, ok := l.sch.byLower[lk]
		if !ok {
			f, ok = l.sch.aliases[lk]
		}
		if !ok {
			msg := "config: unknown key ignored"
			if l.sch.ignored[lk] {
				msg = "config: RocketMQ key not supported by this implementation, ignored"
			}
			l.lg.Warn(msg, zap.String("key", written), zap.String("source", source))
			continue
		}
		raw := fmt.Sprint(v.Get(lk))
		if err := setField(f.value(dst), raw); err != nil {
			errs = append(errs, &ValueError{Key: f.name, Value: raw, Source: source, Reason: err.Error()})
			continue
		}
		set[strings.ToLower(f.name)] = true
	}
	return set, errors.Join(errs...)
}

// origin returns the key as written and where its effective value came from.
func (l *loader[C, T]) origin(lk string, codec *propertiesCodec) (string, string) {
	for k := range l.overrides {
		if strings.ToLower(k) == lk {
			return k, "command line"
		}
	}
	if p, ok := codec.seen[lk]; ok {
		return p.Key, l.at(p.Line)
	}
	if f, ok := l.sch.byLower[lk]; ok {
		return f.name, l.defaultSrc[lk]
	}
	return lk, l.defaultSrc[lk]
}

func (l *loader[C, T]) at(line int) string { return l.path + ":" + strconv.Itoa(line) }

// setField parses raw into fv according to its type. Surrounding white space is ignored.
func setField(fv reflect.Value, raw string) error {
	s := strings.TrimSpace(raw)
	if u, ok := fv.Addr().Interface().(encoding.TextUnmarshaler); ok {
		return u.UnmarshalText([]byte(s))
	}
	switch fv.Kind() {
	case reflect.String:
		fv.SetString(s)
	case reflect.Bool:
		b, err := parseBool(s)
		if err != nil {
			return err
		}
		fv.SetBool(b)
	case reflect.Int, reflect.Int64:
		bits := 64
		if fv.Kind() == reflect.Int {
			bits = 32 // a Java int
		}
		n, err := strconv.ParseInt(s, 10, bits)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return fmt.Errorf("out of range for a %d-bit integer", bits)
			}
			return errors.New("want a whole number")
		}
		fv.SetInt(n)
	default:
		return fmt.Errorf("unsupported field type %s", fv.Type())
	}
	return nil
}

func parseBool(s string) (bool, error) {
	switch {
	case strings.EqualFold(s, "true"):
		return true, nil
	case strings.EqualFold(s, "false"):
		return false, nil
	}
	if b, err := strconv.ParseBool(s); err == nil {
		return b, nil
	}
	return false, errors.New("want true or false")
}

// effectiveText renders an effective configuration for the log: a title line, then one indented
// key=value line per key, those that differ from the defaults (set in the file, on the command
// line or derived) first.
func effectiveText(title string, fields, defaults []Field) string {
	def := make(map[string]string, len(defaults))
	for _, f := range defaults {
		def[f.Key] = f.Value
	}
	var set, unchanged strings.Builder
	nSet := 0
	for _, f := range fields {
		if v, ok := def[f.Key]; ok && v == f.Value {
			fmt.Fprintf(&unchanged, "\n    %s=%s", f.Key, f.Value)
			continue
		}
		nSet++
		fmt.Fprintf(&set, "\n    %s=%s", f.Key, f.Value)
	}
	return fmt.Sprintf("%s (%d keys; %d set or derived, listed first, then the defaults):\n  set or derived:%s\n  defaults:%s",
		title, len(fields), nSet, set.String(), unchanged.String())
}

func orNop(lg *zap.Logger) *zap.Logger {
	if lg == nil {
		return zap.NewNop()
	}
	return lg
}
