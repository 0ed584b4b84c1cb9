package message

import (
	"bytes"
	"sort"
	"strings"
)

// Separators of the properties string: key\x01value\x02key\x01value\x02...
const (
	NameValueSeparator = '\x01'
	PropertySeparator  = '\x02'
)

// EncodeProperties encodes m as key\x01value\x02 pairs in key order (Java's
// order is its HashMap's; any order decodes the same).
func EncodeProperties(m map[string]string) string {
	if len(m) == 0 {
		return ""
	}
	return string(AppendProperties(nil, m))
}

// AppendProperties appends the encoding of m to dst.
func AppendProperties(dst []byte, m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		dst = AppendProperty(dst, k, m[k])
	}
	return dst
}

// AppendProperty appends one key\x01value\x02 pair to dst.
func AppendProperty(dst []byte, key, value string) []byte {
	dst = append(dst, key...)
	dst = append(dst, NameValueSeparator)
	dst = append(dst, value...)
	return append(dst, PropertySeparator)
}

// ParseProperties decodes a properties string the way Java's
// MessageDecoder.string2messageProperties does: pairs split on \x02, key and
// value on the first \x01; a pair with an empty key or an empty value is
// dropped; a later duplicate key wins.
func ParseProperties[S ~string | ~[]byte](s S) map[string]string {
	m := make(map[string]string)
	forEachProperty(string(s), func(k, v string) bool {
		m[k] = v
		return true
	})
	return m
}

// forEachProperty calls f for every well-formed pair until f returns false.
func forEachProperty(s string, f func(k, v string) bool) {
	for len(s) > 0 {
		pair := s
		if i := strings.IndexByte(s, PropertySeparator); i >= 0 {
			pair, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		i := strings.IndexByte(pair, NameValueSeparator)
		if i > 0 && i < len(pair)-1 {
			if !f(pair[:i], pair[i+1:]) {
				return
			}
		}
	}
}

// LookupProperty finds key in an encoded properties string without allocating.
// Like ParseProperties, the last well-formed pair with that key wins.
func LookupProperty(props []byte, key string) (value []byte, ok bool) {
	for len(props) > 0 {
		pair := props
		if i := bytes.IndexByte(props, PropertySeparator); i >= 0 {
			pair, props = props[:i], props[i+1:]
		} else {
			props = nil
		}
		i := bytes.IndexByte(pair, NameValueSeparator)
		if i > 0 && i < len(pair)-1 && string(pair[:i]) == key {
			value, ok = pair[i+1:], true
		}
	}
	return value, ok
}

// LookupPropertyString is LookupProperty over a string.
func LookupPropertyString(props, key string) (value string, ok bool) {
	for len(props) > 0 {
		pair := props
		if i := strings.IndexByte(props, PropertySeparator); i >= 0 {
			pair, props = props[:i], props[i+1:]
		} else {
			props = ""
		}
		i := strings.IndexByte(pair, NameValueSeparator)
		if i > 0 && i < len(pair)-1 && pair[:i] == key {
			value, ok = pair[i+1:], true
		}
	}
	return value, ok
}
