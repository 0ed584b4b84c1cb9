package protocol

import "testing"

func TestVersionDesc(t *testing.T) {
	for v, want := range map[int]string{
		0: "V3_0_0_SNAPSHOT", 1: "V3_0_0_ALPHA1", 15: "V3_0_0_FINAL", 16: "V3_0_1_SNAPSHOT", 17: "V3_0_1",
		45: "V3_0_15", 46: "V3_1_0_SNAPSHOT", 86: "V3_3_1_SNAPSHOT", 212: "V4_0_0_SNAPSHOT", 213: "V4_0_0",
		317: "V4_5_2", 409: "V4_9_8", 412: "V5_0_0_SNAPSHOT", 479: "V5_3_3", 611: "V5_9_9", 612: "HIGHER_VERSION",
		100000: "HIGHER_VERSION", -1: "-1",
	} {
		if got := VersionDesc(v); got != want {
			t.Errorf("VersionDesc(%d) = %s, want %s", v, got, want)
		}
	}
}
