package namesrv

import (
	"errors"
	"net/netip"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Defaults of the registration caps in Options. A compressed body may inflate to what an
// uncompressed one could carry in a frame (16 MiB).
const (
	DefaultMaxTopicsPerRegistration = 100000
	DefaultMaxRegistrationBodyBytes = 16 << 20
)

// registrationDecodes bounds the REGISTER_BROKER bodies being decoded at once: decoding one takes
// up to about twice MaxRegistrationBodyBytes, so a flood of registrations waits for a slot instead
// of multiplying that by the number of connections. Brokers register every 30 s; two slots keep
// up with thousands of them.
const registrationDecodes = 2

// Who may send what, when the allowlists are set: brokers register, admins write.
var (
	registrationCodes = []protocol.RequestCode{protocol.RegisterBroker, protocol.UnregisterBroker, protocol.QueryDataVersion}
	adminWriteCodes   = []protocol.RequestCode{protocol.PutKVConfig, protocol.DeleteKVConfig, protocol.DeleteTopicInNamesrv,
		protocol.WipeWritePermOfBroker, protocol.AddWritePermOfBroker, protocol.UpdateNamesrvConfig}
)

// guard refuses a request whose code an allowlist covers when its peer is not on that list.
func (p *processor) guard(code protocol.RequestCode, c *remoting.Conn) error {
	list, key := p.allowlistFor(code)
	if len(list) == 0 || allowed(list, c.RemoteAddr()) {
		return nil
	}
	return peerRefusedError{code: code, peer: c.RemoteAddr(), list: key}
}

// allowlistFor returns the allowlist covering code and its key, or nil.
func (p *processor) allowlistFor(code protocol.RequestCode) ([]netip.Prefix, string) {
	for _, c := range registrationCodes {
		if c == code {
			return p.opts.RegistrationAllowlist, "brokerRegistrationAllowlist"
		}
	}
	for _, c := range adminWriteCodes {
		if c == code {
			return p.opts.AdminAllowlist, "adminWriteAllowlist"
		}
	}
	return nil, ""
}

// allowed reports whether the socket peer remote ("ip:port") is in list.
func allowed(list []netip.Prefix, remote string) bool {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		return false
	}
	ip := ap.Addr().Unmap()
	for _, p := range list {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// limitedLog writes at most burst lines per interval and then one line saying how many it
// dropped: hostile clients cannot flood the log with refused requests.
type limitedLog struct {
	lg       *zap.Logger
	interval time.Duration
	burst    int

	mu      sync.Mutex
	start   time.Time
	written int
	dropped int
}

func newLimitedLog(lg *zap.Logger) *limitedLog {
	return &limitedLog{lg: lg, interval: time.Second, burst: 20}
}

func (l *limitedLog) log(msg string, fields ...zap.Field) {
	now := time.Now()
	l.mu.Lock()
	if now.Sub(l.start) >= l.interval {
		if l.dropped > 0 {
			l.lg.Warn("log lines dropped: too many refused or failed requests", zap.Int("dropped", l.dropped))
		}
		l.start, l.written, l.dropped = now, 0, 0
	}
	if l.written >= l.burst {
		l.dropped++
		l.mu.Unlock()
		return
	}
	l.written++
	l.mu.Unlock()
	l.lg.Warn(msg, fields...)
}

// conflictLogged logs a registration or unregistration refused for taking over a live broker, on
// a log line of its own kind, so that floods of other refusals do not hide it.
func (p *processor) conflictLogged(c *remoting.Conn, err error) {
	var conflict *RegistrationConflictError
	if errors.As(err, &conflict) {
		p.conflicts.log("broker registration refused: held by another connection", zap.String("remote", c.RemoteAddr()),
			zap.Error(err))
	}
}
