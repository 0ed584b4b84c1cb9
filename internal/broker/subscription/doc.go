// Package subscription is the broker's consumer group table (Java SubscriptionGroupManager):
// per-group settings such as consumeEnable, retryQueueNums, retryMaxTimes and the broker to read
// from when consumption lags, persisted in <storePathRootDir>/config/subscriptionGroup.json as
// {"subscriptionGroupTable":{...},"dataVersion":{...}}.
//
// Groups are created on first use (heartbeat, pull, send-back) when autoCreateSubscriptionGroup
// is on; system groups (CID_RMQ_SYS_*) always are. Every change bumps the DataVersion and rewrites
// the file through configfile.
package subscription
