package mqbench

import (
	"encoding/binary"
	"encoding/hex"
	"net/netip"
	"strings"
)

// keySpace makes the UNIQ_KEY of every message a run sends: 32 upper-case
// hex characters like a Java client's id (16 bytes), laid out as
//
//	IPv4 (4) | pid (2) | run nonce (4) | sequence number (6)
//
// so that a consumer can tell this run's messages from others and map each
// one back to its sequence number without keeping the keys.
type keySpace struct {
	prefix string // 20 hex characters: IP, pid and nonce
}

const (
	keyLen       = 32
	keyPrefixLen = 20
	maxSeq       = 1<<48 - 1
)

func newKeySpace(ip netip.Addr, pid int, nonce uint32) keySpace {
	var b [10]byte
	if ip.Is4() || ip.Is4In6() {
		a := ip.Unmap().As4()
		copy(b[:4], a[:])
	}
	binary.BigEndian.PutUint16(b[4:], uint16(pid))
	binary.BigEndian.PutUint32(b[6:], nonce)
	return keySpace{prefix: strings.ToUpper(hex.EncodeToString(b[:]))}
}

// appendKey appends the key of sequence number seq to dst.
func (k keySpace) appendKey(dst []byte, seq uint64) []byte {
	const digits = "0123456789ABCDEF"
	dst = append(dst, k.prefix...)
	for shift := 44; shift >= 0; shift -= 4 {
		dst = append(dst, digits[(seq>>uint(shift))&0xF])
	}
	return dst
}

// seqOf returns the sequence number of key, or false when key is not one
// of this run's.
func (k keySpace) seqOf(key []byte) (uint64, bool) {
	if len(key) != keyLen || string(key[:keyPrefixLen]) != k.prefix {
		return 0, false
	}
	var seq uint64
	for _, c := range key[keyPrefixLen:] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		seq = seq<<4 | uint64(d)
	}
	return seq, true
}
