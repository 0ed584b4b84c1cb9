package acl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Options configure a Service.
type Options struct {
	// Path of plain_acl.yml.
	Path string
	// ReloadInterval is how often the file's modification time and size are looked at; a change
	// reloads it. Default 5 s (Java's AclFileWatchService interval).
	ReloadInterval time.Duration
}

// maxFileSize bounds what is read of plain_acl.yml.
const maxFileSize = 4 << 20

// Service holds the current plain_acl.yml and checks requests against it. Start runs the
// goroutine that reloads the file when it changes; Close stops it.
type Service struct {
	opts   Options
	lg     *zap.Logger
	denyLg *zap.Logger // sampled: a client retrying a denied request must not flood the log
	cfg    atomic.Pointer[Config]

	reloadMu sync.Mutex // serializes reloads
	stamp    fileStamp  // of the loaded file, under reloadMu
	changed  fileStamp  // a newer stamp seen once, under reloadMu: loaded when seen again unchanged

	watcher   lifecycle.Group
	startOnce sync.Once
}

// fileStamp is what tells a changed file.
type fileStamp struct {
	mod  time.Time
	size int64
}

// New loads the file at opts.Path. A missing, unreadable or malformed file is an error: a
// broker with aclEnable=true and no usable plain_acl.yml would refuse every request.
func New(opts Options, lg *zap.Logger) (*Service, error) {
	if lg == nil {
		lg = zap.NewNop()
	}
	if opts.ReloadInterval <= 0 {
		opts.ReloadInterval = 5 * time.Second
	}
	s := &Service{opts: opts, lg: lg}
	s.denyLg = lg.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core {
		return zapcore.NewSamplerWithOptions(c, time.Second, 5, 0)
	}))
	cfg, st, err := s.load()
	if err != nil {
		return nil, err
	}
	s.install(cfg, st)
	return s, nil
}

// Config returns the configuration in force.
func (s *Service) Config() *Config { return s.cfg.Load() }

// Check lets req from remoteAddr through (nil) or not (a *DeniedError); see Config.Check.
func (s *Service) Check(remoteAddr string, req *protocol.Command) error {
	return s.cfg.Load().Check(remoteAddr, req)
}

// Intercept answers a request the ACL refuses with SYSTEM_ERROR and the AclException text, as a
// 4.9 broker does (clients retry, then fail); nil lets it through. It fits
// remoting.ServerOptions.Intercept with the connection's remote address.
func (s *Service) Intercept(remoteAddr string, req *protocol.Command) *protocol.Command {
	err := s.Check(remoteAddr, req)
	if err == nil {
		return nil
	}
	var d *DeniedError
	if !errors.As(err, &d) {
		d = &DeniedError{Msg: err.Error()}
	}
	s.denyLg.Warn("request denied by ACL", zap.String("remote", remoteAddr),
		zap.Stringer("code", req.RequestCode()), zap.String("reason", d.Msg))
	return protocol.NewResponse(req, protocol.SystemError, d.Remark())
}

// Start watches the file; a change (modification time or size) reloads it. A file that fails to
// load leaves the configuration in force and is logged.
func (s *Service) Start() {
	s.startOnce.Do(func() { s.watcher.Go(s.watch) })
}

// Close stops watching and waits for the watcher. It is idempotent.
func (s *Service) Close() { s.watcher.Stop() }

func (s *Service) watch(stop <-chan struct{}) {
	t := time.NewTicker(s.opts.ReloadInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.reloadIfChanged()
		}
	}
}

// reloadIfChanged reloads the file once its stamp has moved and then stayed the same for one
// look (so that a file being written is not read half-way); it reports whether a new
// configuration is in force. A file that cannot be used, or that holds nothing (as Java skips an
// empty file), leaves the configuration in force.
func (s *Service) reloadIfChanged() bool {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	fi, err := os.Stat(s.opts.Path)
	if err != nil {
		s.lg.Warn("cannot read the ACL file; keeping the rules in force", zap.String("path", s.opts.Path), zap.Error(err))
		return false
	}
	st := fileStamp{fi.ModTime(), fi.Size()}
	switch st {
	case s.stamp:
		s.changed = fileStamp{}
		return false
	case s.changed:
	default:
		s.changed = st // look again next time
		return false
	}
	cfg, st, err := s.load()
	s.stamp, s.changed = st, fileStamp{} // a broken file is reported once, not every interval
	switch {
	case err != nil:
		s.lg.Error("ACL file changed but cannot be used; keeping the rules in force", zap.Error(err))
		return false
	case cfg.empty:
		s.lg.Warn("ACL file changed but holds nothing; keeping the rules in force", zap.String("path", s.opts.Path))
		return false
	}
	s.install(cfg, st)
	return true
}

func (s *Service) load() (*Config, fileStamp, error) {
	f, err := os.Open(s.opts.Path)
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("acl: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("acl: %w", err)
	}
	st := fileStamp{fi.ModTime(), fi.Size()}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, st, fmt.Errorf("acl: read %s: %w", s.opts.Path, err)
	}
	if len(data) > maxFileSize {
		return nil, st, fmt.Errorf("acl: %s is larger than %d bytes", s.opts.Path, maxFileSize)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return nil, st, fmt.Errorf("acl: %s: %w", s.opts.Path, err)
	}
	return cfg, st, nil
}

func (s *Service) install(cfg *Config, st fileStamp) {
	s.cfg.Store(cfg)
	s.stamp = st
	for _, w := range cfg.Warnings {
		s.lg.Warn("ACL file: "+w, zap.String("path", s.opts.Path))
	}
	s.lg.Info("ACL rules loaded", zap.String("path", s.opts.Path), zap.Int("accounts", len(cfg.Accounts)),
		zap.Int("globalWhiteRemoteAddresses", len(cfg.GlobalWhiteRemoteAddresses)))
}

// MayRead applies Config.MayRead of the configuration in force.
func (s *Service) MayRead(remoteAddr string, req *protocol.Command, topic string) error {
	return s.cfg.Load().MayRead(remoteAddr, req, topic)
}

// MayWrite applies Config.MayWrite of the configuration in force.
func (s *Service) MayWrite(remoteAddr string, req *protocol.Command, topic string) error {
	return s.cfg.Load().MayWrite(remoteAddr, req, topic)
}
