package index

import (
	"math"
	"unicode/utf16"
)

// JavaStringHash is Java's String.hashCode of s: h = 31·h + c over the UTF-16 code units of the
// string a Java broker would decode from the same UTF-8 bytes. Runes above U+FFFF count as their
// two surrogates; an invalid UTF-8 byte counts as U+FFFD, as Go's decoder reads it (Java's
// decoder also substitutes U+FFFD but may group some malformed sequences differently).
func JavaStringHash(s string) int32 {
	return javaHashAppend(0, s)
}

// javaHashAppend continues a Java String hash h over s, so that
// javaHashAppend(JavaStringHash(a), b) == JavaStringHash(a+b) without building a+b.
// ASCII is hashed four bytes at a time (h·31⁴ + c0·31³ + c1·31² + c2·31 + c3), which shortens
// the chain of dependent multiplications; arithmetic wraps as Java's int does.
func javaHashAppend(h int32, s string) int32 {
	i := 0
	for ; i+4 <= len(s); i += 4 {
		c0, c1, c2, c3 := s[i], s[i+1], s[i+2], s[i+3]
		if c0|c1|c2|c3 >= 0x80 {
			break
		}
		h = h*923521 + int32(c0)*29791 + int32(c1)*961 + int32(c2)*31 + int32(c3)
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return javaHashAppendRunes(h, s[i:])
		}
		h = 31*h + int32(c)
	}
	return h
}

func javaHashAppendRunes(h int32, s string) int32 {
	for _, r := range s {
		if r < 0x10000 {
			h = 31*h + int32(r)
			continue
		}
		hi, lo := utf16.EncodeRune(r)
		h = 31*(31*h+int32(hi)) + int32(lo)
	}
	return h
}

// KeyHash is the hash IndexFile stores for a key: Math.abs(key.hashCode()), and 0 for
// Integer.MIN_VALUE, whose absolute value Java leaves negative (IndexFile.indexKeyHashMethod).
func KeyHash(key string) int32 {
	return positiveHash(JavaStringHash(key))
}

// TopicKeyHash is KeyHash(topic + "#" + key), the key IndexService builds, computed without
// allocating.
func TopicKeyHash(topic, key string) int32 {
	return positiveHash(javaHashAppend(topicPrefixHash(topic), key))
}

// topicPrefixHash is the Java hash of topic + "#".
func topicPrefixHash(topic string) int32 {
	return 31*javaHashAppend(0, topic) + '#'
}

func positiveHash(h int32) int32 {
	if h == math.MinInt32 {
		return 0
	}
	if h < 0 {
		return -h
	}
	return h
}
