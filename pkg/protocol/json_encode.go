package protocol

import (
	"slices"
	"strconv"
)

// appendJSONHeader appends cmd's header as a JSON object with Java's key
// order. Every extFields value is written as a JSON string (the Go client
// decodes them into map[string]string); keys are sorted so that the output
// is deterministic. An empty Language is left out.
func appendJSONHeader(dst []byte, cmd *Command) []byte {
	dst = append(dst, `{"code":`...)
	dst = strconv.AppendInt(dst, int64(cmd.Code), 10)
	dst = append(dst, `,"extFields":`...)
	dst = appendJSONExtFields(dst, cmd.ExtFields)
	dst = append(dst, `,"flag":`...)
	dst = strconv.AppendInt(dst, int64(cmd.Flag), 10)
	if cmd.Language != "" {
		dst = append(dst, `,"language":`...)
		dst = appendJSONString(dst, cmd.Language)
	}
	dst = append(dst, `,"opaque":`...)
	dst = strconv.AppendInt(dst, int64(cmd.Opaque), 10)
	dst = append(dst, `,"remark":`...)
	dst = appendJSONString(dst, cmd.Remark)
	dst = append(dst, `,"serializeTypeCurrentRPC":"JSON","version":`...)
	dst = strconv.AppendInt(dst, int64(cmd.Version), 10)
	return append(dst, '}')
}

func appendJSONExtFields(dst []byte, ext Ext) []byte {
	dst = append(dst, '{')
	var stack [maxStackFields]kv
	for i, f := range sortedFields(stack[:0], ext) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, f.k)
		dst = append(dst, ':')
		dst = appendJSONString(dst, f.v)
	}
	return append(dst, '}')
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a quoted JSON string. Quotes, backslashes
// and control characters (including the \u0001 and \u0002 property
// separators) are escaped; other bytes, invalid UTF-8 included, are copied.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := plainPrefix(s); i < len(s); i += 1 + plainPrefix(s[i+1:]) {
		c := s[i]
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// kv is one ext field being encoded; p holds the first eight bytes of k,
// big-endian and zero-padded, so that most comparisons are one of integers.
type kv struct {
	k, v string
	p    uint64
}

func (a *kv) less(b *kv) bool {
	if a.p != b.p {
		return a.p < b.p
	}
	return a.k < b.k
}

// maxStackFields is how many ext fields encoders sort in a stack array.
const maxStackFields = 32

// sortedFields appends the fields of ext to buf sorted by key, so that
// encoded headers are deterministic. Callers pass a stack array to avoid
// allocating. Headers carry a handful of fields: an insertion sort of the
// pairs beats sorting keys and looking each one up again.
func sortedFields(buf []kv, ext Ext) []kv {
	for _, f := range ext.fields {
		k, v := f.key, f.val
		var p uint64
		for i := 0; i < 8; i++ {
			p <<= 8
			if i < len(k) {
				p |= uint64(k[i])
			}
		}
		buf = append(buf, kv{k, v, p})
	}
	if len(buf) > 24 {
		slices.SortFunc(buf, func(a, b kv) int {
			if a.less(&b) {
				return -1
			}
			return 1 // keys are distinct
		})
		return buf
	}
	for i := 1; i < len(buf); i++ {
		x := buf[i]
		j := i
		for ; j > 0 && x.less(&buf[j-1]); j-- {
			buf[j] = buf[j-1]
		}
		buf[j] = x
	}
	return buf
}
