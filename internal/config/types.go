package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Millis is a duration written in milliseconds, as RocketMQ's *Interval, *Timeout and *Mills keys
// are.
type Millis int64

// Duration converts m to a time.Duration.
func (m Millis) Duration() time.Duration { return time.Duration(m) * time.Millisecond }

// BrokerRole is a broker's replication role (Java BrokerRole).
type BrokerRole string

// Broker roles.
const (
	AsyncMaster BrokerRole = "ASYNC_MASTER"
	SyncMaster  BrokerRole = "SYNC_MASTER"
	Slave       BrokerRole = "SLAVE"
)

// IsMaster reports whether r is one of the master roles.
func (r BrokerRole) IsMaster() bool { return r == AsyncMaster || r == SyncMaster }

// UnmarshalText accepts a role name in any letter case.
func (r *BrokerRole) UnmarshalText(b []byte) error {
	v, err := parseEnum(string(b), AsyncMaster, SyncMaster, Slave)
	if err == nil {
		*r = v
	}
	return err
}

// FlushDiskType selects how the CommitLog reaches the disk (Java FlushDiskType).
type FlushDiskType string

// Flush types.
const (
	AsyncFlush FlushDiskType = "ASYNC_FLUSH"
	SyncFlush  FlushDiskType = "SYNC_FLUSH"
)

// UnmarshalText accepts a flush type in any letter case.
func (f *FlushDiskType) UnmarshalText(b []byte) error {
	v, err := parseEnum(string(b), AsyncFlush, SyncFlush)
	if err == nil {
		*f = v
	}
	return err
}

// MessageRequestMode is how a group's consumers of a topic fetch when no one set it (Java
// MessageRequestMode).
type MessageRequestMode string

// Request modes.
const (
	RequestModePull MessageRequestMode = "PULL"
	RequestModePop  MessageRequestMode = "POP"
)

// UnmarshalText accepts a mode in any letter case.
func (m *MessageRequestMode) UnmarshalText(b []byte) error {
	v, err := parseEnum(string(b), RequestModePull, RequestModePop)
	if err == nil {
		*m = v
	}
	return err
}

// MetricsExporterType selects the metrics exporter (RocketMQ 5 MetricsExporterType).
type MetricsExporterType string

// Exporter types. Only DISABLE and PROM are implemented; the loader turns OTLP_GRPC and LOG into
// DISABLE with a warning.
const (
	MetricsDisable  MetricsExporterType = "DISABLE"
	MetricsOTLPGRPC MetricsExporterType = "OTLP_GRPC"
	MetricsProm     MetricsExporterType = "PROM"
	MetricsLog      MetricsExporterType = "LOG"
)

// UnmarshalText accepts a name in any letter case, or Java's ordinal 0-3.
func (m *MetricsExporterType) UnmarshalText(b []byte) error {
	all := []MetricsExporterType{MetricsDisable, MetricsOTLPGRPC, MetricsProm, MetricsLog}
	if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
		if n < 0 || n >= len(all) {
			return fmt.Errorf("want one of %s or 0-%d", enumList(all), len(all)-1)
		}
		*m = all[n]
		return nil
	}
	v, err := parseEnum(string(b), all...)
	if err == nil {
		*m = v
	}
	return err
}

// Enabled reports whether metrics are served over HTTP.
func (m MetricsExporterType) Enabled() bool { return m == MetricsProm }

func parseEnum[T ~string](s string, allowed ...T) (T, error) {
	s = strings.TrimSpace(s)
	for _, a := range allowed {
		if strings.EqualFold(s, string(a)) {
			return a, nil
		}
	}
	return "", fmt.Errorf("want one of %s", enumList(allowed))
}

func enumList[T ~string](allowed []T) string {
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}

func validEnum[T ~string](v T, allowed ...T) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

// ParseDelayLevels parses a messageDelayLevel value: space-separated durations with unit s, m, h
// or d ("1s 5s 10s 30s 1m ..."). Level n is the n-th item.
func ParseDelayLevels(s string) ([]time.Duration, error) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return nil, fmt.Errorf("no delay levels")
	}
	units := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour}
	levels := make([]time.Duration, 0, len(fields))
	for _, f := range fields {
		unit, ok := units[f[len(f)-1]]
		if !ok {
			return nil, fmt.Errorf("level %q: unit must be s, m, h or d", f)
		}
		n, err := strconv.ParseInt(f[:len(f)-1], 10, 32)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("level %q: want a positive number before the unit", f)
		}
		levels = append(levels, time.Duration(n)*unit)
	}
	return levels, nil
}

// ParseDeleteHours parses a deleteWhen value: hours of the day 0-23 separated by ';' ("04",
// "01;13").
func ParseDeleteHours(s string) ([]int, error) {
	var hours []int
	for _, f := range strings.Split(s, ";") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		h, err := strconv.Atoi(f)
		if err != nil || h < 0 || h > 23 {
			return nil, fmt.Errorf("hour %q: want 00-23", f)
		}
		hours = append(hours, h)
	}
	if len(hours) == 0 {
		return nil, fmt.Errorf("no hour given")
	}
	return hours, nil
}

// SplitAddrs splits a ';'-separated address list (namesrvAddr), dropping blanks.
func SplitAddrs(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ";") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// ParseLabels parses metricsLabel: "key:value" pairs separated by ','.
func ParseLabels(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, fmt.Errorf("label %q: want key:value", pair)
		}
		if !validLabelName(k) {
			return nil, fmt.Errorf("label %q: name must match [a-zA-Z_][a-zA-Z0-9_]*", k)
		}
		out[k] = v
	}
	return out, nil
}

func validLabelName(s string) bool {
	for i, c := range s {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}
