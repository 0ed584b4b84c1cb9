// Package configfile persists the broker's and name server's JSON config files (topics.json,
// subscriptionGroup.json, consumerOffset.json, kvConfig.json) the way Java's ConfigManager does,
// but durably.
//
// Write keeps the previous content as <file>.bak and replaces <file> atomically:
//
//  1. the current <file>, if any, is copied to <file>.bak (through a synced temp file and rename);
//  2. the new content goes to a temp file in the same directory, which is fsynced;
//  3. the temp file is renamed over <file>, and the directory is fsynced.
//
// A crash at any point leaves <file> holding either the old or the new content, and <file>.bak a
// complete earlier version. Read falls back to <file>.bak when <file> is missing, empty or
// rejected by the caller's decoder, as Java's ConfigManager.loadBak does.
//
// Callers serialize writes to one path; the managers hold their own lock around Write.
package configfile
