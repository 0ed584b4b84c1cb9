package systopic

import (
	"slices"
	"testing"
)

// TestNamesAreJavas checks the spellings against RocketMQ's TopicValidator and MixAll.
func TestNamesAreJavas(t *testing.T) {
	for got, want := range map[string]string{
		AutoCreate: "TBW102", Schedule: "SCHEDULE_TOPIC_XXXX", Benchmark: "BenchmarkTest",
		TransHalf: "RMQ_SYS_TRANS_HALF_TOPIC", TransOpHalf: "RMQ_SYS_TRANS_OP_HALF_TOPIC",
		TransCheckMaxTime: "TRANS_CHECK_MAX_TIME_TOPIC", Trace: "RMQ_SYS_TRACE_TOPIC", SelfTest: "SELF_TEST_TOPIC",
		OffsetMovedEvent: "OFFSET_MOVED_EVENT", Checkpoint: "CHECKPOINT_TOPIC", RevivePrefix: "rmq_sys_REVIVE_LOG_",
		Timer: "rmq_sys_wheel_timer", LMQPrefix: "%LMQ%", TransCheckGroup: "CID_RMQ_SYS_TRANS",
		Retry("G"): "%RETRY%G", DLQ("G"): "%DLQ%G", Reply("C"): "C_REPLY_TOPIC",
	} {
		if got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}

func TestClassification(t *testing.T) {
	if g, ok := RetryGroup(Retry("G1")); !ok || g != "G1" {
		t.Fatal("RetryGroup")
	}
	if _, ok := RetryGroup(DLQ("G1")); ok || !IsRetry(Retry("x")) || !IsDLQ(DLQ("x")) || IsRetry(DLQ("x")) || !IsLMQ("%LMQ%q") {
		t.Fatal("retry/DLQ/LMQ")
	}
	for _, sys := range append(Static(), SystemPrefix+"x", Timer, RevivePrefix+"c") {
		if !IsSystem(sys) {
			t.Errorf("%s is a system topic", sys)
		}
	}
	for _, user := range []string{"T", Retry("G"), DLQ("G"), Checkpoint, "tbw102"} {
		if IsSystem(user) {
			t.Errorf("%s is not a 4.9 system topic", user)
		}
	}
	allowed := []string{AutoCreate, Benchmark, Trace}
	for _, name := range Static() {
		if IsNotAllowedSend(name) == slices.Contains(allowed, name) {
			t.Errorf("IsNotAllowedSend(%s)", name)
		}
	}
	s := Static()
	s[0] = "changed"
	if Static()[0] != AutoCreate || !IsSystemGroup(TransCheckGroup) || IsSystemGroup("G") {
		t.Fatal("Static shares its array, or system groups")
	}
}

func TestPopNames(t *testing.T) {
	if Revive("C") != "rmq_sys_REVIVE_LOG_C" || ReviveGroup != "CID_RMQ_SYS_REVIVE_GROUP" ||
		PopRetry("G", "T") != "%RETRY%G_T" || PopRetryV2("G", "T") != "%RETRY%G+T" {
		t.Fatal("names")
	}
	if !IsPopRetryV2("%RETRY%G+T") || IsPopRetryV2("%RETRY%G_T") || IsPopRetryV2("T+x") {
		t.Fatal("IsPopRetryV2")
	}
	for retry, want := range map[string]string{"%RETRY%G_T": "T", "%RETRY%G+T_x": "T_x", "%RETRY%G_": "", "%RETRY%GT": "", "%RETRY%H_T": ""} {
		got, ok := PopRetryOrigin(retry, "G")
		if got != want || ok != (want != "") {
			t.Errorf("%s: %q %v", retry, got, ok)
		}
	}
}
