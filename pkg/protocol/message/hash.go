package message

import "unicode/utf8"

// JavaHash is Java's String.hashCode of s read as UTF-8: s[0]*31^(n-1) + ... over
// its UTF-16 code units, with int32 overflow. Characters beyond the BMP count as
// their surrogate pair; an invalid byte counts as U+FFFD.
func JavaHash(s string) int32 {
	var h int32
	for _, r := range s {
		h = javaHashRune(h, r)
	}
	return h
}

// JavaHashBytes is JavaHash over a byte slice, without allocating.
func JavaHashBytes(b []byte) int32 {
	var h int32
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		b = b[n:]
		h = javaHashRune(h, r)
	}
	return h
}

func javaHashRune(h int32, r rune) int32 {
	if r < 0x10000 {
		return 31*h + int32(r)
	}
	r -= 0x10000
	hi := 0xD800 + (r>>10)&0x3FF
	lo := 0xDC00 + r&0x3FF
	return 31*(31*h+hi) + lo
}

// TagsCode is the ConsumeQueue tagsCode of a TAGS value: its Java hashCode
// sign-extended, 0 for no tags.
func TagsCode(tags []byte) int64 {
	if len(tags) == 0 {
		return 0
	}
	return int64(JavaHashBytes(tags))
}
