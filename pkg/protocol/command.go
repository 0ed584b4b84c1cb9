package protocol

import "strconv"

// SerializeType says how a frame's header is encoded.
type SerializeType uint8

// Header encodings (the high byte of a frame's second word).
const (
	JSON     SerializeType = 0
	RocketMQ SerializeType = 1
)

// String returns the Java name of t.
func (t SerializeType) String() string {
	switch t {
	case JSON:
		return "JSON"
	case RocketMQ:
		return "ROCKETMQ"
	}
	return "SerializeType(" + strconv.Itoa(int(t)) + ")"
}

// Flag bits.
const (
	FlagResponse int32 = 1 << 0
	FlagOneway   int32 = 1 << 1
)

// Version numbers (Java MQVersion ordinals) that matter on the wire.
const (
	// VersionV4_9_8 is what this server stamps on every command it sends.
	VersionV4_9_8 int16 = 409
)

// LanguageJava is the language this server reports, like a Java server does.
const LanguageJava = "JAVA"

// Command is one remoting frame: a request or a response.
type Command struct {
	Code      int32  // request code, or response code in a response: see RequestCode, ResponseCode
	Language  string // "JAVA", "GO", ...; binary headers carry its code
	Version   int16  // sender's MQVersion ordinal
	Opaque    int32  // request id, echoed by the response
	Flag      int32  // FlagResponse | FlagOneway
	Remark    string // error text
	ExtFields Ext    // the custom header; every value a string on the wire
	Body      []byte
	// BodyParts are written after Body without copying (e.g. slices of mapped files).
	BodyParts [][]byte
	// Release, if set, is called once after the frame has been written or
	// dropped. The transport does not touch the command afterwards, so its
	// owner may reuse it (and its ext fields) from then on.
	Release func()
	// SerializeType is the header encoding; a response copies its request's.
	SerializeType SerializeType
}

// RequestCode returns the code of a request.
func (c *Command) RequestCode() RequestCode { return RequestCode(c.Code) }

// ResponseCode returns the code of a response.
func (c *Command) ResponseCode() ResponseCode { return ResponseCode(c.Code) }

// IsResponse reports whether the response flag is set.
func (c *Command) IsResponse() bool { return c.Flag&FlagResponse != 0 }

// IsOneway reports whether the oneway flag is set.
func (c *Command) IsOneway() bool { return c.Flag&FlagOneway != 0 }

// BodyLen is the number of body bytes the frame carries: Body plus all BodyParts.
func (c *Command) BodyLen() int {
	n := len(c.Body)
	for _, p := range c.BodyParts {
		n += len(p)
	}
	return n
}

// SetExt sets one ext field.
func (c *Command) SetExt(key, value string) { c.ExtFields.Set(key, value) }

// NewRequest builds a request in the JSON encoding, stamped like a Java 4.9.8
// sender, with the ext fields of ext: for fields no typed header declares (tests,
// tools); NewHeaderRequest sends a typed header. The opaque is left 0: whoever
// sends the request assigns it.
func NewRequest(code RequestCode, ext map[string]string, body []byte) *Command {
	return &Command{
		Code:      int32(code),
		Language:  LanguageJava,
		Version:   VersionV4_9_8,
		ExtFields: NewExt(ext),
		Body:      body,
	}
}

// NewHeaderRequest builds a request like NewRequest whose ext fields are h's.
func NewHeaderRequest(code RequestCode, h Header, body []byte) *Command {
	cmd := NewRequest(code, nil, body)
	h.Encode(&cmd.ExtFields)
	return cmd
}

// NewResponse builds the answer to req: same opaque and serialize type, the
// response flag set, stamped like a Java 4.9.8 server.
func NewResponse(req *Command, code ResponseCode, remark string) *Command {
	return &Command{
		Code:          int32(code),
		Language:      LanguageJava,
		Version:       VersionV4_9_8,
		Opaque:        req.Opaque,
		Flag:          FlagResponse,
		Remark:        remark,
		SerializeType: req.SerializeType,
	}
}

// ResetResponse makes resp, a command its owner reuses, the answer to req as NewResponse
// builds it; resp keeps its Release and the room of its ext fields, which are emptied.
func ResetResponse(resp, req *Command, code ResponseCode, remark string) {
	ext, release := resp.ExtFields, resp.Release
	ext.Reset()
	*resp = Command{
		Code:          int32(code),
		Language:      LanguageJava,
		Version:       VersionV4_9_8,
		Opaque:        req.Opaque,
		Flag:          FlagResponse,
		Remark:        remark,
		SerializeType: req.SerializeType,
		ExtFields:     ext,
		Release:       release,
	}
}

// languageNames is Java's LanguageCode table, indexed by code.
var languageNames = [...]string{
	"JAVA", "CPP", "DOTNET", "PYTHON", "DELPHI", "ERLANG", "RUBY", "OTHER",
	"HTTP", "GO", "PHP", "OMS", "RUST", "NODE_JS",
}

// languageOther is the code written for a name the binary header cannot carry.
const languageOther = 7

// LanguageName returns the Java name of a language code. Codes Java does not
// know are returned as their decimal text, so that they survive a round trip.
func LanguageName(code uint8) string {
	if int(code) < len(languageNames) {
		return languageNames[code]
	}
	return strconv.Itoa(int(code))
}

// LanguageCode returns the binary code of a language name: a Java name, or
// the decimal text of a code (as LanguageName produces). An empty name is
// JAVA; any other unknown name is OTHER.
func LanguageCode(name string) uint8 {
	if name == "" {
		return 0
	}
	for i, n := range languageNames {
		if n == name {
			return uint8(i)
		}
	}
	if v, err := strconv.ParseUint(name, 10, 8); err == nil && strconv.FormatUint(v, 10) == name {
		return uint8(v)
	}
	return languageOther
}
