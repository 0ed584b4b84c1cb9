// Package rebalance holds the queue locks of orderly consumers (Java RebalanceLockManager): a
// client that locks a queue owns it until it unlocks it or stops renewing the lock for 60 s.
package rebalance
