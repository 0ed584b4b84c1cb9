package config

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// key declares one key of broker.conf (C = Broker, T = BrokerOptions) or namesrv.conf (C =
// Namesrv, T = NamesrvOptions). Everything about a key is in its entry of brokerKeys or
// namesrvKeys: its name, type, default, range, documentation line and where it lands in the
// components' options. The loader, Validate, the effective-configuration log, the -p listing,
// GET_BROKER_CONFIG, the list of RocketMQ keys this implementation ignores and the key tables of
// docs/configuration.md are all derived from those tables.
type key[C, T any] struct {
	name   string // as RocketMQ spells it; files match it case-insensitively
	old    string // an older spelling still accepted, or ""
	origin origin

	// field is the field of C holding the value; the field's Go type is the key's type (see
	// setField). Nil for a RocketMQ key that is accepted and ignored.
	field func(*C) any
	// def is the default as a file would write it ("" leaves the zero value); defFunc computes it
	// instead (host name, home directory). defDoc is the default as the docs show it, when def alone
	// does not say it (derived by the loader, computed, ...).
	def     string
	defFunc func() string
	defDoc  string

	check check  // the range a number must be in
	doc   string // one line for docs/configuration.md

	// to writes the value where it lands in the components' options. Nil for a key that has no
	// effect yet: it is still parsed, validated, logged and answered to GET_BROKER_CONFIG.
	to func(*C, *T)

	section string // the heading it is listed under; set by section
}

// check is the range a numeric key's value must be in; Validate applies it.
type check uint8

const (
	nonNegative check = iota // ≥ 0, the rule for every number without another
	positive                 // > 0
	port                     // 0-65535
	percent                  // 0-100
	signed                   // any number (defaultPopShareQueueNum's -1)
)

// origin is where a key's name comes from.
type origin uint8

const (
	fromJava       origin = iota // a setter of Apache RocketMQ's config classes (4.9 or 5)
	systemProperty               // a Java -D system property (tls.*), read from the file here
	ours                         // a key of this implementation only
)

// section sets the heading of keys.
func section[C, T any](title string, keys ...key[C, T]) []key[C, T] {
	for i := range keys {
		keys[i].section = title
	}
	return keys
}

// ignored declares RocketMQ keys this implementation accepts and ignores, with a warning that
// says so instead of the one for a typo.
func ignored[C, T any](names ...string) []key[C, T] {
	keys := make([]key[C, T], len(names))
	for i, n := range names {
		keys[i] = key[C, T]{name: n, origin: fromJava}
	}
	return keys
}

// schema indexes a key table for the loader.
type schema[C, T any] struct {
	keys    []key[C, T]          // the keys with a field, sorted by name
	byLower map[string]key[C, T] // lower-case name → key
	aliases map[string]key[C, T] // lower-case old spelling → key
	ignored map[string]bool      // lower-case names of the RocketMQ keys ignored
}

func newSchema[C, T any](table []key[C, T]) *schema[C, T] {
	s := &schema[C, T]{byLower: map[string]key[C, T]{}, aliases: map[string]key[C, T]{}, ignored: map[string]bool{}}
	for _, k := range table {
		if k.field == nil {
			s.ignored[strings.ToLower(k.name)] = true
			continue
		}
		s.keys = append(s.keys, k)
		s.byLower[strings.ToLower(k.name)] = k
		if k.old != "" {
			s.aliases[strings.ToLower(k.old)] = k
		}
	}
	sort.Slice(s.keys, func(i, j int) bool { return s.keys[i].name < s.keys[j].name })
	return s
}

// value is the reflect.Value of k's field in c.
func (k key[C, T]) value(c *C) reflect.Value { return reflect.ValueOf(k.field(c)).Elem() }

// applyDefaults sets every field of c to its key's default. A default that does not parse is a
// mistake in the table (TestDefaultsParse catches it), so it panics.
func applyDefaults[C, T any](table []key[C, T], c *C) {
	for _, k := range table {
		text := k.def
		if k.defFunc != nil {
			text = k.defFunc()
		}
		if k.field == nil || text == "" {
			continue
		}
		if err := setField(k.value(c), text); err != nil {
			panic(fmt.Sprintf("config: default of %s %q: %v", k.name, text, err))
		}
	}
}

// checkFields applies the range checks to every numeric field of c.
func checkFields[C, T any](sch *schema[C, T], c *C) []error {
	var errs []error
	for _, k := range sch.keys {
		fv := k.value(c)
		if fv.Kind() != reflect.Int && fv.Kind() != reflect.Int64 {
			continue
		}
		if reason := k.check.reason(fv.Int()); reason != "" {
			errs = append(errs, &ValueError{Key: k.name, Value: strconv.FormatInt(fv.Int(), 10), Reason: reason})
		}
	}
	return errs
}

// reason says why n is out of range, or "".
func (c check) reason(n int64) string {
	switch {
	case c == positive && n <= 0:
		return "must be greater than 0"
	case c == port && (n < 0 || n > 65535):
		return "want a port 0-65535"
	case c == percent && (n < 0 || n > 100):
		return "want a percentage 0-100"
	case c == nonNegative && n < 0:
		return "must not be negative"
	}
	return ""
}

// Field is one key of an effective configuration.
type Field struct {
	Key   string
	Value string
}

// fieldsOf lists every key of c with its value, sorted by key.
func fieldsOf[C, T any](sch *schema[C, T], c *C) []Field {
	out := make([]Field, 0, len(sch.keys))
	for _, k := range sch.keys {
		out = append(out, Field{Key: k.name, Value: fmt.Sprint(k.value(c).Interface())})
	}
	return out
}

// mapOnto runs the to of every key of table on c and o, in table order.
func mapOnto[C, T any](table []key[C, T], c *C, o *T) {
	for _, k := range table {
		if k.to != nil {
			k.to(c, o)
		}
	}
}
