package acl

import (
	"crypto/subtle"
	"encoding/base64"
	"slices"
	"strings"
	"sync"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Sign computes a request's signature as RocketMQ's Java client does: the values of every ext
// field except Signature and _UNIQUE_KEY_QUERY, in key order, then the body, signed with
// HmacSHA1 keyed by secretKey, in standard Base64. The fields must already hold AccessKey (and
// SecurityToken, if used).
func Sign(secretKey string, ext protocol.Ext, body []byte) string {
	a := &Account{SecretKey: secretKey}
	var sum [sigLen]byte
	return string(a.signature(sum[:0], ext, body, javaRule))
}

// signRule says which ext fields the signed content leaves out.
type signRule uint8

const (
	javaRule signRule = iota // Signature and _UNIQUE_KEY_QUERY (Java client and server)
	goRule                   // Signature and SecurityToken (rocketmq-client-go)
)

func (r signRule) skips(key string) bool {
	switch key {
	case protocol.ExtSignature:
		return true
	case protocol.ExtUniqueKeyQuery: // Java's MixAll.UNIQUE_MSG_QUERY_FLAG
		return r == javaRule
	case protocol.ExtSecurityToken:
		return r == goRule
	}
	return false
}

// sigLen is the length of a Base64 HmacSHA1.
const sigLen = 28

// signScratch holds the sorted fields and the concatenated values while signing.
type signScratch struct {
	fields  []signField
	content []byte
	sum     [20]byte // the HMAC; here rather than on the stack, which Sum through an interface would escape
}

// signField is one signed ext field.
type signField struct{ key, val string }

var scratchPool = sync.Pool{New: func() any {
	return &signScratch{fields: make([]signField, 0, 32), content: make([]byte, 0, 512)}
}}

// signature appends the Base64 signature of ext and body under rule to dst.
func (a *Account) signature(dst []byte, ext protocol.Ext, body []byte, rule signRule) []byte {
	sc := scratchPool.Get().(*signScratch)
	for k, v := range ext.All() {
		if !rule.skips(k) {
			sc.fields = append(sc.fields, signField{k, v})
		}
	}
	slices.SortFunc(sc.fields, func(a, b signField) int { return strings.Compare(a.key, b.key) })
	for _, f := range sc.fields {
		sc.content = append(sc.content, f.val...)
	}
	h := a.mac()
	h.Write(sc.content)
	h.Write(body)
	dst = base64.StdEncoding.AppendEncode(dst, h.Sum(sc.sum[:0]))
	a.putMac(h)
	clear(sc.fields)
	sc.fields, sc.content = sc.fields[:0], sc.content[:0]
	scratchPool.Put(sc)
	return dst
}

// verify reports whether req carries a signature of a's: by the Java rule, or else by the Go
// client's, which leaves SecurityToken out of what it signs (and keeps _UNIQUE_KEY_QUERY in).
// The comparison takes the same time wherever the signatures differ.
func (a *Account) verify(req *protocol.Command) bool {
	var cred protocol.SessionCredentials
	_ = cred.Decode(req.ExtFields) // every field is optional: no error
	got := cred.Signature.V
	var buf [sigLen]byte
	if subtle.ConstantTimeCompare(a.signature(buf[:0], req.ExtFields, req.Body, javaRule), []byte(got)) == 1 {
		return true
	}
	if !cred.SecurityToken.Valid && !req.ExtFields.Has(protocol.ExtUniqueKeyQuery) {
		return false // both rules sign the same content
	}
	return subtle.ConstantTimeCompare(a.signature(buf[:0], req.ExtFields, req.Body, goRule), []byte(got)) == 1
}
