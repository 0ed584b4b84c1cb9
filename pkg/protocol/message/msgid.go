package message

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// ErrBadMsgID reports a message id that is not 32 or 56 hex characters.
var ErrBadMsgID = errors.New("message: malformed message id")

const upperHex = "0123456789ABCDEF"

func appendUpperHex(dst, b []byte) []byte {
	for _, c := range b {
		dst = append(dst, upperHex[c>>4], upperHex[c&0xF])
	}
	return dst
}

// OffsetMsgID is the offset message id of a record: upper-case hex of the store
// host's IP, port (int32) and the CommitLog offset (int64); 32 characters for
// IPv4, 56 for IPv6.
func OffsetMsgID(storeHost netip.AddrPort, phyOffset int64) string {
	var buf [56]byte
	return string(AppendOffsetMsgID(buf[:0], storeHost, phyOffset))
}

// AppendOffsetMsgID appends the offset message id to dst.
func AppendOffsetMsgID(dst []byte, storeHost netip.AddrPort, phyOffset int64) []byte {
	var raw [28]byte
	n := putHost(raw[:], storeHost)
	binary.BigEndian.PutUint64(raw[n:], uint64(phyOffset))
	return appendUpperHex(dst, raw[:n+8])
}

// ParseOffsetMsgID decodes an offset message id into the store host and CommitLog offset.
func ParseOffsetMsgID(id string) (netip.AddrPort, int64, error) {
	if len(id) != 32 && len(id) != 56 {
		return netip.AddrPort{}, 0, ErrBadMsgID
	}
	var raw [28]byte
	n, err := hex.Decode(raw[:], []byte(id))
	if err != nil {
		return netip.AddrPort{}, 0, ErrBadMsgID
	}
	hostLen := n - 8
	return host(raw[:hostLen]), int64(binary.BigEndian.Uint64(raw[hostLen:n])), nil
}

// UniqIDGenerator makes UNIQ_KEY values in the Java client's layout
// (MessageClientIDSetter): upper-case hex of IP (4 or 16 bytes), pid int16, a
// per-process int32, ms since the start of the current local month int32 and a
// counter int16. It is safe for concurrent use.
type UniqIDGenerator struct {
	prefix  []byte // hex of ip + pid + seed
	counter atomic.Uint32
	now     func() time.Time

	mu         sync.Mutex
	monthStart atomic.Int64 // ms
	nextMonth  atomic.Int64 // ms
}

// NewUniqIDGenerator returns a generator for this host; seed plays the part of
// Java's class-loader hash. now may be nil (time.Now).
func NewUniqIDGenerator(ip netip.Addr, pid int, seed int32, now func() time.Time) *UniqIDGenerator {
	if now == nil {
		now = time.Now
	}
	var raw [16 + 2 + 4]byte
	n := 4
	if isV6(ip) {
		a := ip.As16()
		copy(raw[:], a[:])
		n = 16
	} else if ip.IsValid() {
		a := ip.Unmap().As4()
		copy(raw[:], a[:])
	}
	binary.BigEndian.PutUint16(raw[n:], uint16(pid))
	binary.BigEndian.PutUint32(raw[n+2:], uint32(seed))
	g := &UniqIDGenerator{prefix: appendUpperHex(nil, raw[:n+6]), now: now}
	g.setMonth(now())
	return g
}

func (g *UniqIDGenerator) setMonth(t time.Time) {
	y, m, _ := t.Date()
	start := time.Date(y, m, 1, 0, 0, 0, 0, t.Location())
	g.monthStart.Store(start.UnixMilli())
	g.nextMonth.Store(start.AddDate(0, 1, 0).UnixMilli())
}

// New returns a fresh id.
func (g *UniqIDGenerator) New() string {
	var buf [56]byte
	return string(g.Append(buf[:0]))
}

// Append appends a fresh id to dst.
func (g *UniqIDGenerator) Append(dst []byte) []byte {
	t := g.now()
	ms := t.UnixMilli()
	if ms >= g.nextMonth.Load() {
		g.mu.Lock()
		if ms >= g.nextMonth.Load() {
			g.setMonth(t)
		}
		g.mu.Unlock()
	}
	diff := int32(ms - g.monthStart.Load())
	if diff < 0 && diff > -1_000_000 { // clock stepped back (NTP), as Java does
		diff = 0
	}
	var raw [6]byte
	binary.BigEndian.PutUint32(raw[:], uint32(diff))
	binary.BigEndian.PutUint16(raw[4:], uint16(g.counter.Add(1)-1))
	dst = append(dst, g.prefix...)
	return appendUpperHex(dst, raw[:])
}
