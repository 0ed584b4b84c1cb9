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

func appendJSONExtFields(dst []byte, ext map[string]string) []byte {
	dst = append(dst, '{')
	var stack [32]string
	for i, k := range sortedKeys(stack[:0], ext) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, k)
		dst = append(dst, ':')
		dst = appendJSONString(dst, ext[k])
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
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
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

// sortedKeys appends the keys of m to buf and sorts them, so that encoded
// headers are deterministic. Callers pass a stack array to avoid allocating.
func sortedKeys(buf []string, m map[string]string) []string {
	for k := range m {
		buf = append(buf, k)
	}
	slices.Sort(buf)
	return buf
}
