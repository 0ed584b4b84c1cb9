//go:build !race

package mqbench

const raceEnabled = false
