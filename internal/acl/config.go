package acl

import (
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // the signature RocketMQ clients compute is HmacSHA1
	"fmt"
	"hash"
	"strconv"
	"strings"
	"sync"
)

// minKeyLen: accessKey and secretKey must be longer than 6 characters (Java AclConstants).
const minKeyLen = 7

// Config is one loaded plain_acl.yml. It is immutable once parsed.
type Config struct {
	// GlobalWhiteRemoteAddresses: a request from a matching address is let through unchecked.
	GlobalWhiteRemoteAddresses []AddrPattern
	// Accounts by access key.
	Accounts map[string]*Account
	// Warnings are what was read but is probably not what was meant (unknown keys, permissions
	// that are not PUB/SUB/PUB|SUB/DENY and so count as DENY, a repeated access key).
	Warnings []string

	empty bool // the file held no document at all
}

// Account is one entry of accounts.
type Account struct {
	AccessKey string
	SecretKey string
	// WhiteRemoteAddress: a request with this account's key from a matching address is let
	// through without its signature or permissions being checked (4.9 semantics).
	WhiteRemoteAddress AddrPattern
	// Admin accounts may send the admin-only codes; one without topicPerms and groupPerms may do
	// everything.
	Admin            bool
	DefaultTopicPerm Perm // for topics not in TopicPerms; DENY when not given
	DefaultGroupPerm Perm // for groups not in GroupPerms; DENY when not given
	TopicPerms       map[string]Perm
	GroupPerms       map[string]Perm

	macs sync.Pool // of hash.Hash: HmacSHA1 keyed with SecretKey
}

// mac returns an HmacSHA1 keyed with the secret key, ready to write; give it back with putMac.
func (a *Account) mac() hash.Hash {
	if h, ok := a.macs.Get().(hash.Hash); ok {
		return h
	}
	return hmac.New(sha1.New, []byte(a.SecretKey))
}

func (a *Account) putMac(h hash.Hash) {
	h.Reset()
	a.macs.Put(h)
}

// owned returns the account's permission on r, and whether it has one of its own (else the
// default applies).
func (a *Account) owned(r resource) (Perm, bool) {
	m, def := a.TopicPerms, a.DefaultTopicPerm
	if r.group {
		m, def = a.GroupPerms, a.DefaultGroupPerm
	}
	if p, ok := m[r.name]; ok {
		return p, true
	}
	return def, false
}

// ParseConfig reads a plain_acl.yml (the YAML subset of docs/security.md). An empty file is an
// empty configuration, which lets no request through. Errors name the line.
func ParseConfig(data []byte) (*Config, error) {
	root, err := parseYAML(data)
	if err != nil {
		return nil, err
	}
	c := &Config{Accounts: map[string]*Account{}}
	switch root.kind {
	case nullNode:
		c.empty = true
		return c, nil
	case mapNode:
	default:
		return nil, yamlErr(root.line, "the file must be a mapping (globalWhiteRemoteAddresses:, accounts:), not %s", root.kind)
	}
	for i, key := range root.keys {
		val := root.vals[i]
		switch key {
		case "globalWhiteRemoteAddresses":
			items, err := scalarList(val, key)
			if err != nil {
				return nil, err
			}
			for _, it := range items {
				p, err := ParseAddrPattern(it.value)
				if err != nil {
					return nil, yamlErr(it.line, "%s: %v", key, err)
				}
				c.GlobalWhiteRemoteAddresses = append(c.GlobalWhiteRemoteAddresses, p)
			}
		case "accounts":
			if err := c.parseAccounts(val); err != nil {
				return nil, err
			}
		case "dataVersion":
			// Written by Java's admin commands; versions nothing here.
		default:
			c.warn(val.line, "unknown key %q ignored", key)
		}
	}
	return c, nil
}

func (c *Config) warn(line int, format string, args ...any) {
	c.Warnings = append(c.Warnings, fmt.Sprintf("line %d: ", line)+fmt.Sprintf(format, args...))
}

func (c *Config) parseAccounts(val *node) error {
	switch val.kind {
	case nullNode:
		return nil
	case seqNode:
	default:
		return yamlErr(val.line, "accounts must be a list, not %s", val.kind)
	}
	for _, item := range val.items {
		if item.kind != mapNode {
			return yamlErr(item.line, "each account must be a mapping (accessKey:, secretKey:, ...), not %s", item.kind)
		}
		a, err := c.parseAccount(item)
		if err != nil {
			return err
		}
		if _, dup := c.Accounts[a.AccessKey]; dup {
			c.warn(item.line, "accessKey %q appears again; this later entry is used", a.AccessKey)
		}
		c.Accounts[a.AccessKey] = a
	}
	return nil
}

func (c *Config) parseAccount(m *node) (*Account, error) {
	a := &Account{DefaultTopicPerm: Deny, DefaultGroupPerm: Deny,
		TopicPerms: map[string]Perm{}, GroupPerms: map[string]Perm{}}
	var topicPerms, groupPerms *node
	for i, key := range m.keys {
		val := m.vals[i]
		var err error
		switch key {
		case "accessKey":
			a.AccessKey, err = scalarValue(val, key)
		case "secretKey":
			a.SecretKey, err = scalarValue(val, key)
		case "whiteRemoteAddress":
			var s string
			if s, err = scalarValue(val, key); err == nil {
				if a.WhiteRemoteAddress, err = ParseAddrPattern(s); err != nil {
					err = yamlErr(val.line, "whiteRemoteAddress: %v", err)
				}
			}
		case "admin":
			a.Admin, err = boolValue(val, key)
		case "defaultTopicPerm":
			a.DefaultTopicPerm, err = c.permValue(val, key)
		case "defaultGroupPerm":
			a.DefaultGroupPerm, err = c.permValue(val, key)
		case "topicPerms":
			topicPerms = val
		case "groupPerms":
			groupPerms = val
		default:
			c.warn(val.line, "unknown account key %q ignored", key)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(a.AccessKey) < minKeyLen || len(a.SecretKey) < minKeyLen {
		return nil, yamlErr(m.line, "accessKey %q: accessKey and secretKey must both be given and longer than 6 characters",
			a.AccessKey)
	}
	// Groups first: Java keeps groups and topics in one table keyed by topic, where a group is its
	// retry topic, so a topicPerms entry for %RETRY%g overrides group g's.
	if err := c.parseResourcePerms(groupPerms, "groupPerms", true, a); err != nil {
		return nil, err
	}
	if err := c.parseResourcePerms(topicPerms, "topicPerms", false, a); err != nil {
		return nil, err
	}
	return a, nil
}

// parseResourcePerms reads a list of "name=PERM".
func (c *Config) parseResourcePerms(val *node, key string, groups bool, a *Account) error {
	if val == nil {
		return nil
	}
	items, err := scalarList(val, key)
	if err != nil {
		return err
	}
	for _, it := range items {
		// Java splits at '=' dropping empty pieces, and wants exactly two.
		var pieces []string
		for _, s := range strings.Split(it.value, "=") {
			if s != "" {
				pieces = append(pieces, s)
			}
		}
		if len(pieces) != 2 {
			return yamlErr(it.line, "%s: %q is not name=PERM", key, it.value)
		}
		name := strings.TrimSpace(pieces[0])
		p, ok := ParsePerm(pieces[1])
		if !ok {
			c.warn(it.line, "%s: %q: permission %q is not PUB, SUB, PUB|SUB or DENY; it counts as DENY", key, it.value, pieces[1])
		}
		r := groupRes(name, p)
		if !groups {
			r = topicRes(name, p)
		}
		if r.group {
			a.GroupPerms[r.name] = p
		} else {
			a.TopicPerms[r.name] = p
		}
	}
	return nil
}

func (c *Config) permValue(val *node, key string) (Perm, error) {
	s, err := scalarValue(val, key)
	if err != nil || val.kind == nullNode {
		return Deny, err
	}
	p, ok := ParsePerm(s)
	if !ok {
		c.warn(val.line, "%s: %q is not PUB, SUB, PUB|SUB or DENY; it counts as DENY", key, s)
	}
	return p, nil
}

// scalarValue returns a scalar's text; a null is "".
func scalarValue(val *node, key string) (string, error) {
	switch val.kind {
	case scalarNode:
		return val.value, nil
	case nullNode:
		return "", nil
	}
	return "", yamlErr(val.line, "%s must be a single value, not %s", key, val.kind)
}

// boolValue reads true/false (and YAML 1.1's yes/no/on/off, as SnakeYAML does); null is false.
func boolValue(val *node, key string) (bool, error) {
	s, err := scalarValue(val, key)
	if err != nil || val.kind == nullNode {
		return false, err
	}
	switch strings.ToLower(s) {
	case "true", "yes", "on":
		return true, nil
	case "false", "no", "off":
		return false, nil
	}
	return false, yamlErr(val.line, "%s: want true or false, got %s", key, strconv.Quote(s))
}

// scalarList returns the scalars of a list; null is an empty list.
func scalarList(val *node, key string) ([]*node, error) {
	switch val.kind {
	case nullNode:
		return nil, nil
	case seqNode:
	default:
		return nil, yamlErr(val.line, "%s must be a list, not %s", key, val.kind)
	}
	out := make([]*node, 0, len(val.items))
	for _, it := range val.items {
		switch it.kind {
		case nullNode:
			continue
		case scalarNode:
			out = append(out, it)
		default:
			return nil, yamlErr(it.line, "%s: each item must be a single value, not %s", key, it.kind)
		}
	}
	return out, nil
}
