package config

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"

	"go.uber.org/zap"
)

// EnvNamesrvAddr is the environment variable that supplies namesrvAddr when neither the file nor
// the command line sets it.
const EnvNamesrvAddr = "NAMESRV_ADDR"

func brokerSchema() *schema[Broker, BrokerOptions] { return newSchema(brokerKeys()) }

// LoadBroker reads a broker.conf (Java-properties; path may be empty for defaults only), applies
// overrides from the command line (they win over the file; e.g. "namesrvAddr" from -n) and the
// NAMESRV_ADDR environment variable (used only when neither sets namesrvAddr), normalizes the
// result as RocketMQ does and validates it. Unknown keys are logged as warnings; every bad value
// is reported, each naming its key, value and line, in one error.
//
// Normalization, each logged when it changes something: brokerId is forced to 0 for a master
// (Java BrokerStartup); diskMaxUsedSpaceRatio is clamped to 10-95, diskSpaceWarningLevelRatio to
// 35-90, diskSpaceCleanForciblyRatio to 30-85 and registerNameServerPeriod to 10000-60000, as Java
// clamps them where it reads them; mappedFileSizeConsumeQueue is rounded up to whole 20-byte
// entries; metricsExporterType OTLP_GRPC and LOG become DISABLE. An empty storePathCommitLog
// becomes <storePathRootDir>/commitlog and a zero haListenPort becomes listenPort+1.
//
// LoadBroker does not log the effective configuration; call LogEffective once at start-up.
func LoadBroker(path string, overrides map[string]string, lg *zap.Logger) (*Broker, error) {
	lg = orNop(lg)
	b := DefaultBroker()
	l := &loader[Broker, BrokerOptions]{sch: brokerSchema(), path: path, overrides: overrides, lg: lg,
		defaults: map[string]string{}, defaultSrc: map[string]string{}}
	if env := os.Getenv(EnvNamesrvAddr); env != "" {
		l.defaults["namesrvaddr"] = env
		l.defaultSrc["namesrvaddr"] = "env " + EnvNamesrvAddr
	}
	if _, err := l.load(b); err != nil {
		return nil, err
	}
	b.normalize(lg)
	if b.AclConfigPath == "" {
		b.AclConfigPath = defaultACLPath(path)
	}
	if err := b.Validate(); err != nil {
		return nil, err
	}
	return b, nil
}

// normalize applies RocketMQ's silent corrections, logging each.
func (b *Broker) normalize(lg *zap.Logger) {
	if b.StorePathCommitLog == "" {
		b.StorePathCommitLog = b.CommitLogDir()
	}
	if b.HAListenPort == 0 {
		b.HAListenPort = b.HAPort()
	}
	if b.BrokerRole.IsMaster() && b.BrokerID != 0 {
		lg.Warn("config: a master's brokerId is always 0; using 0",
			zap.Int64("brokerId", b.BrokerID), zap.String("brokerRole", string(b.BrokerRole)))
		b.BrokerID = 0
	}
	b.normalizeMetrics(lg)
	if r := b.MappedFileSizeConsumeQueue % cqUnitSize; r != 0 && b.MappedFileSizeConsumeQueue > 0 {
		rounded := b.MappedFileSizeConsumeQueue + cqUnitSize - r
		lg.Info("config: mappedFileSizeConsumeQueue rounded up to whole 20-byte entries",
			zap.Int("from", b.MappedFileSizeConsumeQueue), zap.Int("to", rounded))
		b.MappedFileSizeConsumeQueue = rounded
	}
	clampInt(lg, "diskMaxUsedSpaceRatio", &b.DiskMaxUsedSpaceRatio, 10, 95)
	clampInt(lg, "diskSpaceWarningLevelRatio", &b.DiskSpaceWarningLevelRatio, 35, 90)
	clampInt(lg, "diskSpaceCleanForciblyRatio", &b.DiskSpaceCleanForciblyRatio, 30, 85)
	period := int(b.RegisterNameServerPeriod)
	clampInt(lg, "registerNameServerPeriod", &period, 10000, 60000)
	b.RegisterNameServerPeriod = Millis(period)
}

// clampInt limits *v to [lo, hi] with a warning. Values that are negative or above 100 are left
// for Validate to reject when the key is a percentage.
func clampInt(lg *zap.Logger, key string, v *int, lo, hi int) {
	if *v < 0 || (hi <= 100 && *v > 100) {
		return
	}
	to := min(max(*v, lo), hi)
	if to != *v {
		lg.Warn("config: value outside the range RocketMQ uses; clamped",
			zap.String("key", key), zap.Int("value", *v), zap.Int("using", to))
		*v = to
	}
}

// CommitLogDir is storePathCommitLog, or <storePathRootDir>/commitlog when it is empty.
func (b *Broker) CommitLogDir() string {
	if b.StorePathCommitLog != "" {
		return b.StorePathCommitLog
	}
	return filepath.Join(b.StorePathRootDir, "commitlog")
}

// HAPort is haListenPort, or listenPort+1 when it is 0 (listenPort 0 gives 0: any free port).
func (b *Broker) HAPort() int {
	if b.HAListenPort != 0 || b.ListenPort == 0 {
		return b.HAListenPort
	}
	return b.ListenPort + 1
}

// Validate checks every value and the relations between them, and returns all problems joined.
// It accepts configs built in code as well as loaded ones (empty storePathCommitLog and zero
// haListenPort mean "derive").
func (b *Broker) Validate() error {
	errs := checkFields(brokerSchema(), b)
	bad := func(key, value, reason string) {
		errs = append(errs, &ValueError{Key: key, Value: value, Reason: reason})
	}
	for _, kv := range [][2]string{
		{"brokerClusterName", b.BrokerClusterName}, {"brokerName", b.BrokerName},
		{"brokerIP1", b.BrokerIP1}, {"brokerIP2", b.BrokerIP2}, {"storePathRootDir", b.StorePathRootDir},
	} {
		if kv[1] == "" {
			bad(kv[0], kv[1], "must not be empty")
		}
	}
	if !validEnum(b.BrokerRole, AsyncMaster, SyncMaster, Slave) {
		bad("brokerRole", string(b.BrokerRole), "want one of ASYNC_MASTER, SYNC_MASTER, SLAVE")
	}
	if !validEnum(b.FlushDiskType, AsyncFlush, SyncFlush) {
		bad("flushDiskType", string(b.FlushDiskType), "want one of ASYNC_FLUSH, SYNC_FLUSH")
	}
	errs = append(errs, b.checkExporter()...)
	id := strconv.FormatInt(b.BrokerID, 10)
	switch {
	case b.BrokerRole.IsMaster() && b.BrokerID != 0:
		bad("brokerId", id, "a master ("+string(b.BrokerRole)+") must have brokerId 0")
	case b.BrokerRole == Slave && b.BrokerID <= 0:
		bad("brokerId", id, "a SLAVE needs brokerId > 0")
	}
	for _, a := range b.NamesrvAddrs() {
		if err := checkAddr(a); err != nil {
			bad("namesrvAddr", b.NamesrvAddr, "address "+strconv.Quote(a)+": want host:port ("+err.Error()+")")
		}
	}
	if p := b.HAPort(); p != 0 && p == b.ListenPort {
		bad("haListenPort", strconv.Itoa(p), "must differ from listenPort")
	}
	if b.BrokerPermission > 15 {
		bad("brokerPermission", strconv.Itoa(b.BrokerPermission), "want a permission mask 0-15 (read 4, write 2, inherit 1)")
	}
	if b.MaxMessageSize > 0 && b.MappedFileSizeCommitLog > 0 && int64(b.MaxMessageSize)+8 > int64(b.MappedFileSizeCommitLog) {
		bad("maxMessageSize", strconv.Itoa(b.MaxMessageSize), "must be at least 8 bytes below mappedFileSizeCommitLog")
	}
	if b.MappedFileSizeConsumeQueue%cqUnitSize != 0 {
		bad("mappedFileSizeConsumeQueue", strconv.Itoa(b.MappedFileSizeConsumeQueue), "must be a multiple of 20")
	}
	if _, err := b.DeleteHours(); err != nil {
		bad("deleteWhen", b.DeleteWhen, err.Error())
	}
	if _, err := b.DelayLevels(); err != nil {
		bad("messageDelayLevel", b.MessageDelayLevel, err.Error())
	}
	errs = append(errs, b.checkLabels()...)
	errs = append(errs, b.checkLog()...)
	errs = append(errs, b.TLSKeys.check()...)
	errs = append(errs, b.checkACL()...)
	return errors.Join(errs...)
}

// Fields lists every key with its effective value, sorted by key.
func (b *Broker) Fields() []Field { return fieldsOf(brokerSchema(), b) }

// LogEffective logs the effective configuration as one info entry of key=value lines, the keys
// that differ from the defaults first.
func (b *Broker) LogEffective(lg *zap.Logger) {
	orNop(lg).Info(effectiveText("effective broker configuration", b.Fields(), DefaultBroker().Fields()))
}
