package acl

import (
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // the algorithm under test
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// hmacB64 is Base64(HmacSHA1(key, content)), computed here independently of the package.
func hmacB64(key, content string) string {
	m := hmac.New(sha1.New, []byte(key))
	m.Write([]byte(content))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func TestSignMatchesFixedVectors(t *testing.T) {
	// Computed with Python's hmac module over the hand-built content "RocketMQ"+"PG"+"1"+"TopicA"
	// + body (keys sorted: AccessKey, producerGroup, queueId, topic).
	ext := map[string]string{"AccessKey": "RocketMQ", "topic": "TopicA", "producerGroup": "PG", "queueId": "1"}
	require.Equal(t, "mJ+LIoKuXVHOL9gP0VWRb/0uahk=", Sign("12345678", protocol.NewExt(ext), []byte("hello")))
	require.Equal(t, hmacB64("12345678", "RocketMQPG1TopicAhello"), Sign("12345678", protocol.NewExt(ext), []byte("hello")))

	// With a SecurityToken: Java signs it (LDe8…), the Go client does not (4HcH…).
	tok := map[string]string{"AccessKey": "RocketMQ", "SecurityToken": "tok", "topic": "TopicA"}
	body := []byte("\x00\x01body")
	require.Equal(t, "LDe8As2foZEd2WQoLsfQ2Vr4sOk=", Sign("secret-key-1", protocol.NewExt(tok), body))
	a := &Account{SecretKey: "secret-key-1"}
	require.Equal(t, "4HcH6VjgBfm6kqiy541LjWXN2z8=", string(a.signature(nil, protocol.NewExt(tok), body, goRule)))
}

func TestSignLeavesOutSignatureAndUniqueKeyQuery(t *testing.T) {
	ext := map[string]string{
		"AccessKey": "ak-000001", "Signature": "whatever", "_UNIQUE_KEY_QUERY": "true",
		"b": "2", "a": "1", "Z": "0", "unicode": "é",
	}
	// Sorted by key (byte order: upper case first): AccessKey, Z, a, b, unicode.
	require.Equal(t, hmacB64("sk-000001", "ak-000001012é"+"body"), Sign("sk-000001", protocol.NewExt(ext), []byte("body")))
	require.Equal(t, hmacB64("sk-000001", ""), Sign("sk-000001", protocol.Ext{}, nil), "nothing to sign is still a signature")
}

func TestVerifyAcceptsBothRules(t *testing.T) {
	a := &Account{AccessKey: "ak-000001", SecretKey: "sk-000001"}
	req := func(ext map[string]string) *protocol.Command {
		return &protocol.Command{Code: 10, ExtFields: protocol.NewExt(ext), Body: []byte("payload")}
	}

	// Java: token signed.
	ext := map[string]string{"AccessKey": "ak-000001", "SecurityToken": "st", "topic": "T"}
	ext["Signature"] = hmacB64("sk-000001", "ak-000001stT"+"payload")
	require.True(t, a.verify(req(ext)))

	// Go: token sent but not signed.
	ext["Signature"] = hmacB64("sk-000001", "ak-000001T"+"payload")
	require.True(t, a.verify(req(ext)))

	// Go with _UNIQUE_KEY_QUERY: it signs it (Java leaves it out).
	ext = map[string]string{"AccessKey": "ak-000001", "_UNIQUE_KEY_QUERY": "true", "topic": "T"}
	ext["Signature"] = hmacB64("sk-000001", "ak-000001trueT"+"payload")
	require.True(t, a.verify(req(ext)))
	ext["Signature"] = hmacB64("sk-000001", "ak-000001T"+"payload")
	require.True(t, a.verify(req(ext)))

	// Wrong: another secret, another body, a changed field, no signature, a truncated one.
	ext = map[string]string{"AccessKey": "ak-000001", "topic": "T"}
	ext["Signature"] = hmacB64("other-secret", "ak-000001T"+"payload")
	require.False(t, a.verify(req(ext)))
	good := hmacB64("sk-000001", "ak-000001T"+"payload")
	ext["Signature"] = good
	require.True(t, a.verify(req(ext)))
	r := req(ext)
	r.Body = []byte("payloaD")
	require.False(t, a.verify(r))
	ext["topic"] = "T2"
	require.False(t, a.verify(req(ext)))
	ext["topic"] = "T"
	ext["Signature"] = good[:27]
	require.False(t, a.verify(req(ext)))
	delete(ext, "Signature")
	require.False(t, a.verify(req(ext)))
}

func BenchmarkVerify(b *testing.B) {
	a := &Account{AccessKey: "ak-000001", SecretKey: "sk-000001"}
	ext := map[string]string{"AccessKey": "ak-000001", "a": "PG", "b": "TopicTest", "c": "TBW102", "d": "4",
		"e": "1", "f": "0", "g": "1700000000000", "h": "0", "i": "TAGS\x01TagA\x02UNIQ_KEY\x01ABCDEF", "j": "0",
		"k": "false", "l": "16"}
	body := make([]byte, 1024)
	ext["Signature"] = Sign("sk-000001", protocol.NewExt(ext), body)
	req := &protocol.Command{Code: 310, ExtFields: protocol.NewExt(ext), Body: body}
	b.ReportAllocs()
	for b.Loop() {
		if !a.verify(req) {
			b.Fatal("signature rejected")
		}
	}
}
