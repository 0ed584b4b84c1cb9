package interop

import (
	"reflect"
	"testing"
	"time"
)

// slaveSyncTimeout bounds a slave's metadata copy: ours copies every 10 s; Apache 5.x's slaves run
// their full sync once a minute.
const slaveSyncTimeout = 90 * time.Second

// TestRollingMigration walks docs/migration.md's rolling variant: our broker follows an Apache
// master as its slave (CommitLog replicated, ConsumeQueues and index built locally, topics,
// groups, consumer and delay offsets copied); the Apache master is stopped, and our broker starts
// again on the slave's store as the master (brokerId 0). It must then answer exactly what the
// Apache master answered.
func TestRollingMigration(t *testing.T) {
	eachVersion(t, func(t *testing.T, version string) {
		g := newGroup(t)
		ns := startApacheNamesrv(t, g, version)
		spec := brokerSpec{kind: version, cluster: "RollCluster", name: "roll-a", namesrvs: []*namesrv{ns}}
		master := startBroker(t, g, spec)
		w := fill(t, master, ns)
		before := takeSnapshot(t, master.Addr, w)

		slave := startBroker(t, g, withKind(spec, "go", 1, "SLAVE", nil))
		waitSameCommitLog(t, master, slave)
		waitMetadataCopied(t, master, slave, w)
		if err := master.stop(); err != nil {
			t.Fatalf("interop: %v", err)
		}
		// The slave has everything: stop it and start our broker on its store as the master.
		if err := slave.stop(); err != nil {
			t.Fatalf("interop: %v", err)
		}
		promoted := spec
		promoted.kind, promoted.storeDir = "go", slave.StoreDir
		newMaster := startBroker(t, g, promoted)
		after := takeSnapshot(t, newMaster.Addr, w)
		requireSameSnapshot(t, before, after, w)
		t.Logf("the Go broker promoted from slave answers what the %s did: %s", master.label(), before.summary())
	})
}

// waitMetadataCopied waits until the slave's topic and group tables, consumer offsets and delay
// offsets hold what the master's do.
func waitMetadataCopied(t *testing.T, master, slave *broker, w *written) {
	t.Helper()
	var last string
	ok := eventually(slaveSyncTimeout, time.Second, func() bool {
		mt, st := allTopics(t, master.Addr), allTopics(t, slave.Addr)
		for name, tc := range mt {
			if st[name] != tc {
				last = "topic " + name
				return false
			}
		}
		mg, sg := allGroups(t, master.Addr), allGroups(t, slave.Addr)
		for _, name := range w.groups {
			if !reflect.DeepEqual(mg[name], sg[name]) {
				last = "group " + name
				return false
			}
		}
		mo, so := allConsumerOffsets(t, master.Addr), allConsumerOffsets(t, slave.Addr)
		for _, o := range w.offsets {
			key := o.topic + "@" + o.group
			if !reflect.DeepEqual(mo[key], so[key]) {
				last = "consumer offsets of " + key
				return false
			}
		}
		md, sd := delayOffsets(t, master.Addr), delayOffsets(t, slave.Addr)
		for level := range union(md, sd) {
			if md[level] != sd[level] {
				last = "delay offsets"
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("interop: the %s did not copy the %s's metadata within %v: %s differ", slave.label(),
			master.label(), slaveSyncTimeout, last)
	}
}
