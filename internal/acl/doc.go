// Package acl is RocketMQ 4.9's plain ACL for the broker: it reads plain_acl.yml (a small YAML
// subset, parsed here without a YAML module), reloads it when it changes, and decides for each
// request whether to let it through: global and per-account remote-address whitelists, the
// HmacSHA1 signature clients put in the AccessKey/Signature ext fields (Java's rule, and the Go
// client's variant without SecurityToken), admin-only request codes, and PUB/SUB/DENY
// permissions on the topics and consumer groups a request names.
//
// The package knows requests (pkg/protocol) but not connections: the broker hands Intercept the
// peer's address and answers the SYSTEM_ERROR it returns, as a 4.9 broker's RPC hook does.
// docs/security.md describes the file format, the signing rule and the checks.
package acl
