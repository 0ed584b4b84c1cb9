// Package storetest helps test the store: small-segment options, a store on a
// vfstest.FS (OnFS) and the store a power loss leaves of it (AfterPowerLoss),
// a store that closes itself at the end of a test, message builders, and the
// damage a crash leaves (a copy of a live store directory, garbage for
// unsynced data, torn records, flipped bytes).
package storetest
