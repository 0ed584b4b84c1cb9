//go:build race

package commitlog

// raceEnabled: the race detector makes sync.Pool drop items, so pooled paths allocate.
const raceEnabled = true
