package acl

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// AddrPattern is a remote-address whitelist entry of plain_acl.yml, as RocketMQ 4.9's
// RemoteAddressStrategyFactory reads it:
//
//	(blank)                              matches nothing
//	*   *.*.*.*   *:*:*:*:*:*:*:*         matches every address
//	192.168.0.1   ::1                    one address (IPv6 in any spelling)
//	192.168.*.*   192.168.*              ranges: each part "*", "a-b" or a number; missing
//	10.1.100-200.1-20                    trailing parts of a pattern ending in * are *
//	1050::5:600:300c:1-ff   2001:db8::*  the same with IPv6 groups (hex)
//	192.168.1.1,10.0.0.1                 any of a comma-separated list
//	192.168.0.{100,101}                  any of the values in braces, for the last part
//
// Java checks only the first wildcard part of a range and ignores the parts after it
// ("10.1.100-200.1-20" matches 10.1.150.99 there); here every part must match. Java also
// takes only exact addresses in lists and braces; here each item may be any pattern.
type AddrPattern struct {
	text  string
	all   bool
	alts  []AddrPattern // a list: any of them
	v6    bool
	parts []span // 4 (IPv4) or 8 (IPv6) inclusive ranges; none: matches nothing
}

// span is an inclusive range of one address part.
type span struct{ lo, hi uint16 }

// String is the pattern as written.
func (p AddrPattern) String() string { return p.text }

// ParseAddrPattern parses one whiteRemoteAddress or globalWhiteRemoteAddresses entry.
func ParseAddrPattern(s string) (AddrPattern, error) {
	s = strings.TrimSpace(s)
	p := AddrPattern{text: s}
	switch {
	case s == "":
		return p, nil
	case s == "*" || s == "*.*.*.*" || s == "*:*:*:*:*:*:*:*":
		p.all = true
		return p, nil
	case strings.HasSuffix(s, "}"):
		items, err := expandBraces(s)
		if err != nil {
			return p, err
		}
		return p, p.parseList(items)
	case strings.Contains(s, ","):
		return p, p.parseList(strings.Split(s, ","))
	}
	v6, parts, err := parseSingle(s)
	if err != nil {
		return p, err
	}
	p.v6, p.parts = v6, parts
	return p, nil
}

func (p *AddrPattern) parseList(items []string) error {
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			continue // Java's split drops empty items
		}
		v6, parts, err := parseSingle(it)
		if err != nil {
			return fmt.Errorf("address %q in %q: %w", it, p.text, err)
		}
		p.alts = append(p.alts, AddrPattern{text: it, v6: v6, parts: parts})
	}
	if len(p.alts) == 0 {
		return fmt.Errorf("address list %q has no address", p.text)
	}
	return nil
}

// expandBraces turns "192.168.0.{1,2}" into "192.168.0.1" and "192.168.0.2".
func expandBraces(s string) ([]string, error) {
	open := strings.LastIndexByte(s, '{')
	if open < 0 {
		return nil, fmt.Errorf("address %q: '}' without '{'", s)
	}
	prefix := s[:open]
	if prefix == "" || (!strings.HasSuffix(prefix, ".") && !strings.HasSuffix(prefix, ":")) {
		return nil, fmt.Errorf("address %q: braces must hold the whole last part", s)
	}
	if strings.ContainsAny(prefix, "{},") {
		return nil, fmt.Errorf("address %q: only the last part may be a {list}", s)
	}
	var out []string
	for _, v := range strings.Split(s[open+1:len(s)-1], ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, prefix+v)
		}
	}
	return out, nil
}

// parseSingle parses one address or range pattern into its parts.
func parseSingle(s string) (v6 bool, parts []span, err error) {
	if !strings.ContainsAny(s, "*-") {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return false, nil, fmt.Errorf("address %q is not an IP address", s)
		}
		return exactSpans(a.Unmap())
	}
	if strings.Contains(s, ":") {
		parts, err := parseV6Range(s)
		return true, parts, err
	}
	parts, err = parseV4Range(s)
	return false, parts, err
}

func exactSpans(a netip.Addr) (bool, []span, error) {
	if a.Is4() {
		b := a.As4()
		parts := make([]span, 4)
		for i, v := range b {
			parts[i] = span{uint16(v), uint16(v)}
		}
		return false, parts, nil
	}
	b := a.As16()
	parts := make([]span, 8)
	for i := range parts {
		v := uint16(b[2*i])<<8 | uint16(b[2*i+1])
		parts[i] = span{v, v}
	}
	return true, parts, nil
}

func parseV4Range(s string) ([]span, error) {
	fields := strings.Split(s, ".")
	if len(fields) > 4 || (len(fields) < 4 && strings.TrimSpace(fields[len(fields)-1]) != "*") {
		return nil, fmt.Errorf("address pattern %q: want 4 parts, or fewer ending in *", s)
	}
	parts := make([]span, 4)
	for i := range parts {
		if i >= len(fields) {
			parts[i] = span{0, 255}
			continue
		}
		sp, err := parseSpan(strings.TrimSpace(fields[i]), 10, 255)
		if err != nil {
			return nil, fmt.Errorf("address pattern %q: part %d: %w", s, i+1, err)
		}
		parts[i] = sp
	}
	return parts, nil
}

func parseV6Range(s string) ([]span, error) {
	var fields []string
	if head, tail, ok := strings.Cut(s, "::"); ok {
		if strings.Contains(tail, "::") {
			return nil, fmt.Errorf("address pattern %q: more than one ::", s)
		}
		h, t := splitGroups(head), splitGroups(tail)
		if len(h)+len(t) > 7 {
			return nil, fmt.Errorf("address pattern %q: too many groups", s)
		}
		fields = append(fields, h...)
		for range 8 - len(h) - len(t) {
			fields = append(fields, "0")
		}
		fields = append(fields, t...)
	} else {
		fields = splitGroups(s)
		if len(fields) < 8 && fields[len(fields)-1] == "*" {
			for len(fields) < 8 {
				fields = append(fields, "*")
			}
		}
	}
	if len(fields) != 8 {
		return nil, fmt.Errorf("address pattern %q: want 8 groups, or fewer with :: or ending in *", s)
	}
	parts := make([]span, 8)
	for i, f := range fields {
		sp, err := parseSpan(strings.TrimSpace(f), 16, 0xffff)
		if err != nil {
			return nil, fmt.Errorf("address pattern %q: group %d: %w", s, i+1, err)
		}
		parts[i] = sp
	}
	return parts, nil
}

func splitGroups(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ":")
}

// parseSpan reads "*", "a-b" or "n" in base (10 or 16), each number at most max.
func parseSpan(f string, base int, max uint64) (span, error) {
	if f == "*" {
		return span{0, uint16(max)}, nil
	}
	num := func(v string) (uint16, error) {
		if v == "" || strings.HasPrefix(v, "+") {
			return 0, fmt.Errorf("%q is not a number", f)
		}
		n, err := strconv.ParseUint(v, base, 16)
		if err != nil || n > max {
			return 0, fmt.Errorf("%q is not a number 0-%s", f, strconv.FormatUint(max, base))
		}
		return uint16(n), nil
	}
	if lo, hi, ok := strings.Cut(f, "-"); ok {
		a, err := num(strings.TrimSpace(lo))
		if err != nil {
			return span{}, err
		}
		b, err := num(strings.TrimSpace(hi))
		if err != nil {
			return span{}, err
		}
		if a > b {
			return span{}, fmt.Errorf("range %q runs backwards", f)
		}
		return span{a, b}, nil
	}
	n, err := num(f)
	return span{n, n}, err
}

// Match reports whether a (IPv4-mapped IPv6 addresses count as IPv4) fits the pattern.
func (p AddrPattern) Match(a netip.Addr) bool {
	if p.all {
		return true
	}
	for _, alt := range p.alts {
		if alt.Match(a) {
			return true
		}
	}
	if len(p.parts) == 0 || !a.IsValid() {
		return false
	}
	a = a.Unmap()
	if a.Is4() != !p.v6 {
		return false
	}
	if a.Is4() {
		b := a.As4()
		for i, v := range b {
			if uint16(v) < p.parts[i].lo || uint16(v) > p.parts[i].hi {
				return false
			}
		}
		return true
	}
	b := a.As16()
	for i, sp := range p.parts {
		v := uint16(b[2*i])<<8 | uint16(b[2*i+1])
		if v < sp.lo || v > sp.hi {
			return false
		}
	}
	return true
}

// remoteIP reads the IP of "ip:port" or "[ip]:port" (or a bare IP); invalid when it cannot.
func remoteIP(addr string) netip.Addr {
	if ap, err := netip.ParseAddrPort(addr); err == nil {
		return ap.Addr().WithZone("").Unmap()
	}
	if a, err := netip.ParseAddr(addr); err == nil {
		return a.WithZone("").Unmap()
	}
	return netip.Addr{}
}
