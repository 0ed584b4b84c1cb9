package ha_test

import (
	"testing"
	"time"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
)

// BenchmarkReplication measures master → slave throughput over loopback: b.N puts of 1 KiB on an
// ASYNC_MASTER, timed until the slave's CommitLog holds all of them.
func BenchmarkReplication(b *testing.B) {
	grow := func(o *store.Options) { o.CommitLogSegmentSize = 64 << 20 }
	master := openStore(b, b.TempDir(), store.RoleAsyncMaster, grow)
	slave := openStore(b, b.TempDir(), store.RoleSlave, grow)
	svc := startService(b, master, serviceOptions("127.0.0.1:0"))
	startClient(b, slave, svc.Addr().String())
	body := make([]byte, 1024)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if r := master.PutMessage(storetest.Msg("B", 0, body, nil)); r.Status != store.PutOK {
			b.Fatal(r.Remark)
		}
	}
	for slave.CommitLogMaxOffset() < master.CommitLogMaxOffset() {
		time.Sleep(50 * time.Microsecond)
	}
}
