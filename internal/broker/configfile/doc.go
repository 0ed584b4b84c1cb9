// Package configfile persists the broker's JSON config files (topics.json,
// subscriptionGroup.json, consumerOffset.json, delayOffset.json) the way Java's
// ConfigManager does, but durably, through the durable-file helpers of
// internal/vfs (vfs.WriteWithBackup and vfs.ReadWithBackup):
//
//  1. the current <file>, if any, is copied to <file>.bak (through a synced temp file and rename);
//  2. the new content goes to <file>.tmp in the same directory, which is fsynced;
//  3. the temp file is renamed over <file>, and the directory is fsynced.
//
// A crash at any point leaves <file> holding either the old or the new content, and <file>.bak a
// complete earlier version. Load falls back to <file>.bak when <file> is missing, empty or
// rejected by the caller's decoder, as Java's ConfigManager.loadBak does.
//
// A Persister serializes its writes; the managers take their snapshot under their own lock.
package configfile
