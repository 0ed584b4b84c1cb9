package cluster

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"time"
)

// Request and response codes this package sends or reads (protocol.md §2).
const (
	CodeSuccess              = 0
	CodePullNotFound         = 19
	CodePullRetryImmediately = 20
	CodePullOffsetMoved      = 21
	CodeQueryNotFound        = 22

	ReqPullMessage            = 11
	ReqQueryConsumerOffset    = 14
	ReqGetMaxOffset           = 30
	ReqGetMinOffset           = 31
	ReqGetConsumerListByGroup = 38
	ReqGetRouteInfoByTopic    = 105
	ReqGetBrokerClusterInfo   = 106
)

// DefaultRequestTimeout bounds one raw request when the context has no earlier deadline.
const DefaultRequestTimeout = 5 * time.Second

// Response is a decoded remoting response frame.
type Response struct {
	Code      int
	Remark    string
	ExtFields map[string]string
	Body      []byte
	// NonStringExt names extFields whose JSON value was not a string. The Go client cannot decode
	// such a header (its call times out), so a server must never send one (protocol.md §1.4).
	NonStringExt []string
}

func (r *Response) String() string {
	return fmt.Sprintf("code=%d remark=%q ext=%v body=%q", r.Code, r.Remark, r.ExtFields, clip(r.Body, 300))
}

var opaqueSeq atomic.Int32

// Invoke sends one request, in the JSON serialization the Go client uses, on a fresh connection
// and returns the response with the same opaque.
func Invoke(ctx context.Context, addr string, code int, ext map[string]string, body []byte) (*Response, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultRequestTimeout)
		defer cancel()
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("remoting: dial %s: %w", addr, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	opaque := opaqueSeq.Add(1)
	frame, err := EncodeRequest(code, opaque, ext, body)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write(frame); err != nil {
		return nil, fmt.Errorf("remoting: write request %d to %s: %w", code, addr, err)
	}
	for {
		f, err := readFrame(conn)
		if err != nil {
			return nil, fmt.Errorf("remoting: read response to request %d from %s: %w", code, addr, err)
		}
		resp, gotOpaque, flag, err := DecodeResponse(f)
		if err != nil {
			return nil, fmt.Errorf("remoting: response to request %d from %s: %w", code, addr, err)
		}
		if flag&1 == 0 || gotOpaque != opaque {
			continue // a server-initiated request or someone else's answer: not ours
		}
		if len(resp.NonStringExt) > 0 {
			return resp, fmt.Errorf("remoting: response to request %d from %s has extFields %v that are not JSON strings; "+
				"the Go client cannot decode such a header: %v", code, addr, resp.NonStringExt, resp)
		}
		return resp, nil
	}
}

type jsonHeader struct {
	Code                    int               `json:"code"`
	Language                string            `json:"language"`
	Version                 int               `json:"version"`
	Opaque                  int32             `json:"opaque"`
	Flag                    int               `json:"flag"`
	Remark                  string            `json:"remark"`
	ExtFields               map[string]string `json:"extFields"`
	SerializeTypeCurrentRPC string            `json:"serializeTypeCurrentRPC,omitempty"`
}

// EncodeRequest builds a JSON-header request frame the way rocketmq-client-go does (language GO,
// version 317, every extFields value a string).
func EncodeRequest(code int, opaque int32, ext map[string]string, body []byte) ([]byte, error) {
	if ext == nil {
		ext = map[string]string{}
	}
	hdr, err := json.Marshal(jsonHeader{Code: code, Language: "GO", Version: 317, Opaque: opaque, ExtFields: ext})
	if err != nil {
		return nil, fmt.Errorf("remoting: encode header: %w", err)
	}
	frame := make([]byte, 8, 8+len(hdr)+len(body))
	binary.BigEndian.PutUint32(frame[0:4], uint32(4+len(hdr)+len(body)))
	binary.BigEndian.PutUint32(frame[4:8], uint32(len(hdr))) // serialize type 0 = JSON
	frame = append(frame, hdr...)
	return append(frame, body...), nil
}

const maxFrame = 64 << 20

// readFrame reads one frame and returns it without its length prefix.
func readFrame(r io.Reader) ([]byte, error) {
	var lenBuf [4]byte
	if _, err := io.ReadFull(r, lenBuf[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(lenBuf[:])
	if n < 4 || n > maxFrame {
		return nil, fmt.Errorf("bad frame length %d", n)
	}
	f := make([]byte, n)
	if _, err := io.ReadFull(r, f); err != nil {
		return nil, err
	}
	return f, nil
}

// DecodeResponse decodes a frame (without its length prefix) in either serialization.
func DecodeResponse(f []byte) (resp *Response, opaque int32, flag int, err error) {
	if len(f) < 4 {
		return nil, 0, 0, fmt.Errorf("frame of %d bytes has no header length", len(f))
	}
	word := binary.BigEndian.Uint32(f[0:4])
	typ, hlen := word>>24, int(word&0xFFFFFF)
	if 4+hlen > len(f) {
		return nil, 0, 0, fmt.Errorf("header length %d exceeds frame of %d bytes", hlen, len(f))
	}
	hdr, body := f[4:4+hlen], f[4+hlen:]
	switch typ {
	case 0:
		resp, opaque, flag, err = decodeJSONHeader(hdr)
	case 1:
		resp, opaque, flag, err = decodeBinaryHeader(hdr)
	default:
		err = fmt.Errorf("unknown serialize type %d", typ)
	}
	if err != nil {
		return nil, 0, 0, err
	}
	resp.Body = body
	return resp, opaque, flag, nil
}

func decodeJSONHeader(hdr []byte) (*Response, int32, int, error) {
	var h struct {
		Code      int                        `json:"code"`
		Opaque    int32                      `json:"opaque"`
		Flag      int                        `json:"flag"`
		Remark    string                     `json:"remark"`
		ExtFields map[string]json.RawMessage `json:"extFields"`
	}
	if err := json.Unmarshal(hdr, &h); err != nil {
		return nil, 0, 0, fmt.Errorf("JSON header %q: %w", clip(hdr, 200), err)
	}
	resp := &Response{Code: h.Code, Remark: h.Remark, ExtFields: map[string]string{}}
	for k, raw := range h.ExtFields {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			resp.ExtFields[k] = s
			continue
		}
		resp.ExtFields[k] = string(raw)
		resp.NonStringExt = append(resp.NonStringExt, k)
	}
	sort.Strings(resp.NonStringExt)
	return resp, h.Opaque, h.Flag, nil
}

// decodeBinaryHeader reads the ROCKETMQ header: code int16, language uint8, version int16,
// opaque int32, flag int32, remark (int32 length), extFields (int32 length, then int16 key
// length + key + int32 value length + value).
func decodeBinaryHeader(h []byte) (*Response, int32, int, error) {
	r := bytes.NewReader(h)
	var fixed struct {
		Code     int16
		Language uint8
		Version  int16
		Opaque   int32
		Flag     int32
	}
	if err := binary.Read(r, binary.BigEndian, &fixed); err != nil {
		return nil, 0, 0, fmt.Errorf("binary header: %w", err)
	}
	remark, err := readLenString(r, 4)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("binary header remark: %w", err)
	}
	resp := &Response{Code: int(fixed.Code), Remark: remark, ExtFields: map[string]string{}}
	var extLen int32
	if err := binary.Read(r, binary.BigEndian, &extLen); err != nil {
		return nil, 0, 0, fmt.Errorf("binary header ext length: %w", err)
	}
	if int(extLen) > r.Len() || extLen < 0 {
		return nil, 0, 0, fmt.Errorf("binary header ext length %d exceeds %d remaining bytes", extLen, r.Len())
	}
	ext := io.LimitReader(r, int64(extLen))
	for {
		k, err := readLenString(ext, 2)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("binary header ext key: %w", err)
		}
		v, err := readLenString(ext, 4)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("binary header ext value of %q: %w", k, err)
		}
		resp.ExtFields[k] = v
	}
	return resp, fixed.Opaque, int(fixed.Flag), nil
}

func readLenString(r io.Reader, width int) (string, error) {
	var n int
	switch width {
	case 2:
		var v int16
		if err := binary.Read(r, binary.BigEndian, &v); err != nil {
			return "", err
		}
		n = int(v)
	default:
		var v int32
		if err := binary.Read(r, binary.BigEndian, &v); err != nil {
			return "", err
		}
		n = int(v)
	}
	if n < 0 || n > maxFrame {
		return "", fmt.Errorf("bad string length %d", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", io.ErrUnexpectedEOF
	}
	return string(b), nil
}

// unquotedKey matches an object key that fastjson wrote as a bare number, e.g. {0:"a:1"}.
var unquotedKey = regexp.MustCompile(`([{,])\s*(-?[0-9]+)\s*:`)

// LenientJSON rewrites fastjson's bare numeric object keys as strings so that encoding/json can
// read the route and cluster bodies a Java-compatible nameserver may send (protocol.md §3.10).
func LenientJSON(b []byte) []byte {
	return unquotedKey.ReplaceAll(b, []byte(`$1"$2":`))
}

func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "...(" + fmt.Sprint(len(b)) + " bytes)"
}

// HasWhitespaceOutsideStrings reports whether a JSON text contains whitespace between tokens. The
// Go client parses brokerAddrs by hand and is corrupted by it (protocol.md §3.10).
func HasWhitespaceOutsideStrings(b []byte) bool {
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && strings.ContainsRune(" \t\r\n", rune(c)):
			return true
		}
	}
	return false
}
