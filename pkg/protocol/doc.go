// Package protocol implements RocketMQ's remoting frames: the Command that is
// one request or response, the frame layout, the two header encodings (JSON
// and the ROCKETMQ binary form), the request and response codes, the typed
// custom headers and a command's ext fields.
//
// # Frame layout
//
// Every integer is big-endian.
//
//	+----------+-----------------------------+-------------+-------------+
//	| length   | serializeType<<24 | hdrLen  | header      | body        |
//	| 4 bytes  | 4 bytes                     | hdrLen bytes| the rest    |
//	+----------+-----------------------------+-------------+-------------+
//
// length counts every byte after itself: 4 + hdrLen + len(body).
// The serialize type is 0 for a JSON header and 1 for a ROCKETMQ header.
//
// # JSON header
//
// A flat object. The encoder writes keys in Java's (alphabetical) order and
// every extFields value as a JSON string:
//
//	{"code":310,"extFields":{"a":"G","b":"T"},"flag":0,"language":"JAVA",
//	 "opaque":7,"remark":"","serializeTypeCurrentRPC":"JSON","version":409}
//
// The decoder is lenient where real clients need it: language may be a name
// or a number, extFields values may be numbers or booleans (ali-ons sends
// them; they are kept as their literal text), nulls mean absent, and unknown
// keys of any type are skipped.
//
// # Decoding
//
// DecodeCommand (or a Decoder, which keeps its scratch space from one frame
// to the next) copies every string of the header into one allocation and
// turns well-known ext field names into constants; only Body aliases the
// frame. The ext fields are an Ext: ordered key/value pairs pointing into
// that one string, no map, each key once (the last duplicate wins, as in
// Java's HashMap). A reader may therefore reuse the frame buffer of a command without
// a body at once, and that of any other once nothing uses its Body.
//
// # ROCKETMQ header
//
//	code int16 | language uint8 | version int16 | opaque int32 | flag int32 |
//	remarkLen int32 | remark | extLen int32 |
//	extLen bytes of repeated (keyLen int16 | key | valLen int32 | val)
//
// # Typed headers
//
// Every request and response header the project sends or serves is a struct
// (header_*.go) that decodes from and encodes to an Ext. A required field
// is a plain value; an optional one is an Opt. A missing or malformed field
// is a *FieldError whose text is Java's ("the custom field <topic> is null"):
//
//	var h protocol.PullMessageRequestHeader
//	if err := h.Decode(req.ExtFields); err != nil { ... }
//	resp := protocol.NewResponse(req, protocol.Success, "")
//	protocol.PullMessageResponseHeader{NextBeginOffset: next, ...}.Encode(&resp.ExtFields)
//
// The field names are spelled once, in fieldnames.go.
//
// The package uses the standard library only.
package protocol
