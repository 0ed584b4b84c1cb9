// Package storetest helps test the store: small-segment options, a store that
// closes itself at the end of a test, message builders, and the damage a crash
// leaves (a copy of a live store directory, lost unsynced data, torn records,
// flipped bytes).
package storetest
