package acl

import (
	"crypto/subtle"
	"encoding/base64"
	"slices"
	"sync"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Ext fields of a signed request.
const (
	FieldAccessKey     = "AccessKey"
	FieldSignature     = "Signature"
	FieldSecurityToken = "SecurityToken"
	// fieldUniqueKeyQuery is left out of the signed content by Java (MixAll.UNIQUE_MSG_QUERY_FLAG).
	fieldUniqueKeyQuery = "_UNIQUE_KEY_QUERY"
)

// Sign computes a request's signature as RocketMQ's Java client does: the values of every ext
// field except Signature and _UNIQUE_KEY_QUERY, in key order, then the body, signed with
// HmacSHA1 keyed by secretKey, in standard Base64. The fields must already hold AccessKey (and
// SecurityToken, if used).
func Sign(secretKey string, ext map[string]string, body []byte) string {
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
	case FieldSignature:
		return true
	case fieldUniqueKeyQuery:
		return r == javaRule
	case FieldSecurityToken:
		return r == goRule
	}
	return false
}

// sigLen is the length of a Base64 HmacSHA1.
const sigLen = 28

// signScratch holds the sorted keys and the concatenated values while signing.
type signScratch struct {
	keys    []string
	content []byte
	sum     [20]byte // the HMAC; here rather than on the stack, which Sum through an interface would escape
}

var scratchPool = sync.Pool{New: func() any { return &signScratch{keys: make([]string, 0, 32), content: make([]byte, 0, 512)} }}

// signature appends the Base64 signature of ext and body under rule to dst.
func (a *Account) signature(dst []byte, ext map[string]string, body []byte, rule signRule) []byte {
	sc := scratchPool.Get().(*signScratch)
	for k := range ext {
		if !rule.skips(k) {
			sc.keys = append(sc.keys, k)
		}
	}
	slices.Sort(sc.keys)
	for _, k := range sc.keys {
		sc.content = append(sc.content, ext[k]...)
	}
	h := a.mac()
	h.Write(sc.content)
	h.Write(body)
	dst = base64.StdEncoding.AppendEncode(dst, h.Sum(sc.sum[:0]))
	a.putMac(h)
	clear(sc.keys)
	sc.keys, sc.content = sc.keys[:0], sc.content[:0]
	scratchPool.Put(sc)
	return dst
}

// verify reports whether req carries a signature of a's: by the Java rule, or else by the Go
// client's, which leaves SecurityToken out of what it signs (and keeps _UNIQUE_KEY_QUERY in).
// The comparison takes the same time wherever the signatures differ.
func (a *Account) verify(req *protocol.Command) bool {
	got := req.ExtFields[FieldSignature]
	var buf [sigLen]byte
	if subtle.ConstantTimeCompare(a.signature(buf[:0], req.ExtFields, req.Body, javaRule), []byte(got)) == 1 {
		return true
	}
	_, token := req.ExtFields[FieldSecurityToken]
	_, unique := req.ExtFields[fieldUniqueKeyQuery]
	if !token && !unique {
		return false // both rules sign the same content
	}
	return subtle.ConstantTimeCompare(a.signature(buf[:0], req.ExtFields, req.Body, goRule), []byte(got)) == 1
}
