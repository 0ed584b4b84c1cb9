package body

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// maxRegisterPart bounds one length-prefixed part of a compressed RegisterBrokerBody, and
// maxRegisterInflated the whole inflated stream, so a small hostile body cannot make us allocate
// without limit.
const (
	maxRegisterPart     = 16 << 20
	maxRegisterInflated = 256 << 20
)

// RegisterBrokerBody is the body of REGISTER_BROKER.
type RegisterBrokerBody struct {
	FilterServerList            []string                    `json:"filterServerList"`
	TopicConfigSerializeWrapper TopicConfigSerializeWrapper `json:"topicConfigSerializeWrapper"`
}

// MarshalJSON emits [] instead of null.
func (r RegisterBrokerBody) MarshalJSON() ([]byte, error) {
	type plain RegisterBrokerBody
	p := plain(r)
	if p.FilterServerList == nil {
		p.FilterServerList = []string{}
	}
	return Marshal(p)
}

// Encode returns the body as JSON, or in the zlib form when compressed is true (header
// compressed=true). The zlib stream inflates to big-endian int32 lengths and counts:
//
//	+-------+------------------+-------+---------------------------------------+
//	| len   | DataVersion JSON | count | count × (len | "name r w perm filter") |
//	+-------+------------------+-------+---------------------------------------+
//	| len   | filterServerList JSON    | mappings (5.x; we write 0)            |
//	+-------+--------------------------+---------------------------------------+
//
// Java 4.9 stops after filterServerList; 5.x adds an int32 count of static-topic mappings, each a
// length-prefixed JSON. The decoder accepts both and ignores the mappings.
func (r *RegisterBrokerBody) Encode(compressed bool) ([]byte, error) {
	if !compressed {
		return Marshal(r)
	}
	var buf bytes.Buffer
	zw, err := zlib.NewWriterLevel(&buf, zlib.BestCompression)
	if err != nil {
		return nil, err
	}
	dv, err := Marshal(r.TopicConfigSerializeWrapper.DataVersion)
	if err != nil {
		return nil, err
	}
	writePart(zw, dv)
	table := r.TopicConfigSerializeWrapper.TopicConfigTable
	names := make([]string, 0, len(table))
	for name := range table {
		names = append(names, name)
	}
	sort.Strings(names)
	writeInt32(zw, int32(len(names)))
	for _, name := range names {
		tc := table[name]
		enc, err := tc.EncodeCompact()
		if err != nil {
			return nil, err
		}
		writePart(zw, enc)
	}
	filters := r.FilterServerList
	if filters == nil {
		filters = []string{}
	}
	fs, err := Marshal(filters)
	if err != nil {
		return nil, err
	}
	writePart(zw, fs)
	writeInt32(zw, 0) // no static-topic mappings
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeInt32(w io.Writer, n int32) {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(n))
	_, _ = w.Write(b[:]) // a bytes.Buffer behind zlib cannot fail
}

func writePart(w io.Writer, p []byte) {
	writeInt32(w, int32(len(p)))
	_, _ = w.Write(p)
}

// RegisterLimits bound what decoding a REGISTER_BROKER body may take. Zero values take the
// package's own bounds: 256 MiB inflated, no limit on the topic count.
type RegisterLimits struct {
	// MaxBodyBytes bounds the body as decoded: the inflated stream of a compressed body, the body
	// itself otherwise.
	MaxBodyBytes int
	// MaxTopics bounds the topics of the body; a compressed body is refused from its topic count,
	// before any topic is decoded.
	MaxTopics int
}

// Errors of a body beyond RegisterLimits; the decode errors wrap them with the figures.
var (
	ErrRegisterBodyTooLarge  = errors.New("body: register body too large")
	ErrRegisterTooManyTopics = errors.New("body: too many topics in a registration")
)

// DecodeRegisterBrokerBody parses a REGISTER_BROKER body in either form. An empty body gives an
// empty table with a zero DataVersion, as Java does.
func DecodeRegisterBrokerBody(data []byte, compressed bool) (*RegisterBrokerBody, error) {
	return DecodeRegisterBrokerBodyLimited(data, compressed, RegisterLimits{})
}

// DecodeRegisterBrokerBodyLimited is DecodeRegisterBrokerBody within lim.
func DecodeRegisterBrokerBodyLimited(data []byte, compressed bool, lim RegisterLimits) (*RegisterBrokerBody, error) {
	if lim.MaxBodyBytes <= 0 {
		lim.MaxBodyBytes = maxRegisterInflated
	}
	r := &RegisterBrokerBody{}
	if len(data) == 0 {
		return r, nil
	}
	if !compressed {
		if len(data) > lim.MaxBodyBytes {
			return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrRegisterBodyTooLarge, len(data), lim.MaxBodyBytes)
		}
		if err := Unmarshal(data, r); err != nil {
			return nil, fmt.Errorf("body: decode RegisterBrokerBody: %w", err)
		}
		if n := len(r.TopicConfigSerializeWrapper.TopicConfigTable); lim.MaxTopics > 0 && n > lim.MaxTopics {
			return nil, fmt.Errorf("%w: %d topics, limit %d", ErrRegisterTooManyTopics, n, lim.MaxTopics)
		}
		return r, nil
	}
	if err := r.decodeCompressed(data, lim); err != nil {
		return nil, fmt.Errorf("body: decode compressed RegisterBrokerBody: %w", err)
	}
	return r, nil
}

func (r *RegisterBrokerBody) decodeCompressed(data []byte, lim RegisterLimits) error {
	zr, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	defer zr.Close()
	in := &inflated{r: io.LimitedReader{R: zr, N: int64(lim.MaxBodyBytes) + 1}, limit: lim.MaxBodyBytes}
	dvJSON, err := readPart(in)
	if err != nil {
		return fmt.Errorf("dataVersion: %w", err)
	}
	if err := Unmarshal(dvJSON, &r.TopicConfigSerializeWrapper.DataVersion); err != nil {
		return fmt.Errorf("dataVersion: %w", err)
	}
	n, err := readInt32(in)
	if err != nil {
		return fmt.Errorf("topic count: %w", err)
	}
	if n < 0 {
		return fmt.Errorf("negative topic count %d", n)
	}
	if lim.MaxTopics > 0 && int(n) > lim.MaxTopics {
		return fmt.Errorf("%w: %d topics, limit %d", ErrRegisterTooManyTopics, n, lim.MaxTopics)
	}
	table := make(map[string]TopicConfig, min(int(n), 4096))
	for i := int32(0); i < n; i++ {
		part, err := readPart(in)
		if err != nil {
			return fmt.Errorf("topic %d: %w", i, err)
		}
		tc, err := DecodeTopicConfigCompact(string(part))
		if err != nil {
			return fmt.Errorf("topic %d: %w", i, err)
		}
		table[tc.TopicName] = tc
	}
	r.TopicConfigSerializeWrapper.TopicConfigTable = table
	fs, err := readPart(in)
	if err != nil {
		return fmt.Errorf("filterServerList: %w", err)
	}
	if err := Unmarshal(fs, &r.FilterServerList); err != nil {
		return fmt.Errorf("filterServerList: %w", err)
	}
	// 5.x appends static-topic mappings; 4.x stops here. We keep neither.
	return nil
}

// inflated reads a zlib stream up to limit bytes; reading beyond fails with
// ErrRegisterBodyTooLarge.
type inflated struct {
	r     io.LimitedReader // N starts at limit+1
	limit int
}

func (in *inflated) Read(p []byte) (int, error) {
	n, err := in.r.Read(p)
	if in.r.N <= 0 {
		return 0, fmt.Errorf("%w: inflates to more than %d bytes", ErrRegisterBodyTooLarge, in.limit)
	}
	return n, err
}

func readInt32(r io.Reader) (int32, error) {
	var b [4]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, err
	}
	return int32(binary.BigEndian.Uint32(b[:])), nil
}

func readPart(r io.Reader) ([]byte, error) {
	n, err := readInt32(r)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > maxRegisterPart {
		return nil, fmt.Errorf("part length %d out of range", n)
	}
	// Grown as the bytes arrive: a part that declares 16 MiB and ends costs what it carried.
	buf, err := io.ReadAll(io.LimitReader(r, int64(n)))
	if err != nil {
		return nil, err
	}
	if len(buf) < int(n) {
		return nil, io.ErrUnexpectedEOF
	}
	return buf, nil
}

// EncodeCompact returns Java's TopicConfig.encode(): "name read write perm filterType", plus the
// attributes JSON as a sixth field when there are attributes (5.x).
func (t TopicConfig) EncodeCompact() ([]byte, error) {
	filter := t.TopicFilterType
	if filter == "" {
		filter = SingleTag
	}
	s := t.TopicName + " " + strconv.Itoa(t.ReadQueueNums) + " " + strconv.Itoa(t.WriteQueueNums) +
		" " + strconv.Itoa(t.Perm) + " " + filter
	if len(t.Attributes) > 0 {
		attrs, err := Marshal(t.Attributes)
		if err != nil {
			return nil, err
		}
		s += " " + string(attrs)
	}
	return []byte(s), nil
}

var errCompactTopic = errors.New("want \"name read write perm filterType [attributes]\"")

// DecodeTopicConfigCompact parses the form EncodeCompact writes.
func DecodeTopicConfigCompact(s string) (TopicConfig, error) {
	f := strings.SplitN(s, " ", 6)
	if len(f) < 5 || f[0] == "" {
		return TopicConfig{}, fmt.Errorf("topic config %q: %w", s, errCompactTopic)
	}
	tc := NewTopicConfig(f[0])
	var err error
	if tc.ReadQueueNums, err = strconv.Atoi(f[1]); err != nil {
		return TopicConfig{}, fmt.Errorf("topic config %q: readQueueNums: %w", s, err)
	}
	if tc.WriteQueueNums, err = strconv.Atoi(f[2]); err != nil {
		return TopicConfig{}, fmt.Errorf("topic config %q: writeQueueNums: %w", s, err)
	}
	if tc.Perm, err = strconv.Atoi(f[3]); err != nil {
		return TopicConfig{}, fmt.Errorf("topic config %q: perm: %w", s, err)
	}
	switch f[4] {
	case SingleTag, MultiTag:
		tc.TopicFilterType = f[4]
	default:
		return TopicConfig{}, fmt.Errorf("topic config %q: filter type %q: %w", s, f[4], errCompactTopic)
	}
	if len(f) == 6 && f[5] != "" {
		if err := json.Unmarshal([]byte(f[5]), &tc.Attributes); err != nil {
			return TopicConfig{}, fmt.Errorf("topic config %q: attributes: %w", s, err)
		}
	}
	return tc, nil
}
