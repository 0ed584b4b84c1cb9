package protocol

import "strconv"

// VersionDesc names a client or broker version number the way Java's MQVersion.getVersionDesc
// does: the number is the ordinal of Java's MQVersion.Version enum (409 is V4_9_8, 317 V4_5_2).
// Numbers past the enum's end name its last entry, HIGHER_VERSION; negative ones are returned
// as digits.
//
// The enum starts with 16 names for the 3.0.0 pre-releases, then lists a _SNAPSHOT and a release
// name for every version of these runs: 3.0.1–3.0.15, 3.1.0–3.1.9, 3.2.0–3.2.9, 3.3.1–3.9.9
// (patch 1–9 of each minor), 4.0.0–5.9.9 (patch 0–9 of each minor); HIGHER_VERSION ends it.
func VersionDesc(v int) string {
	if v < 0 {
		return strconv.Itoa(v)
	}
	if v < len(preReleases) {
		return "V3_0_0_" + preReleases[v]
	}
	n := v - len(preReleases)
	for _, r := range versionRuns() {
		count := 2 * (r.lastPatch - r.firstPatch + 1)
		if n < count {
			name := "V" + strconv.Itoa(r.major) + "_" + strconv.Itoa(r.minor) + "_" + strconv.Itoa(r.firstPatch+n/2)
			if n%2 == 0 {
				name += "_SNAPSHOT"
			}
			return name
		}
		n -= count
	}
	return "HIGHER_VERSION"
}

// preReleases are the first 16 entries of the enum, after "V3_0_0_".
var preReleases = [...]string{
	"SNAPSHOT", "ALPHA1", "BETA1", "BETA2", "BETA3", "BETA4", "BETA5",
	"BETA6_SNAPSHOT", "BETA6", "BETA7_SNAPSHOT", "BETA7", "BETA8_SNAPSHOT", "BETA8",
	"BETA9_SNAPSHOT", "BETA9", "FINAL",
}

// versionRun is a run of patch versions of one major.minor, each listed as _SNAPSHOT then release.
type versionRun struct{ major, minor, firstPatch, lastPatch int }

func versionRuns() []versionRun {
	runs := []versionRun{{3, 0, 1, 15}, {3, 1, 0, 9}, {3, 2, 0, 9}}
	for minor := 3; minor <= 9; minor++ {
		runs = append(runs, versionRun{3, minor, 1, 9})
	}
	for major := 4; major <= 5; major++ {
		for minor := 0; minor <= 9; minor++ {
			runs = append(runs, versionRun{major, minor, 0, 9})
		}
	}
	return runs
}
