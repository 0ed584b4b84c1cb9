// Package slave keeps a slave broker's metadata in step with its master (Java SlaveSynchronize):
// every 10 s, after 3 s, it asks the master for its topic configs (GET_ALL_TOPIC_CONFIG), consumer
// offsets (GET_ALL_CONSUMER_OFFSET), delay offsets (GET_ALL_DELAY_OFFSET) and subscription groups
// (GET_ALL_SUBSCRIPTIONGROUP_CONFIG) and puts them into the slave's own tables, so that consumers
// reading from the slave find their topics, groups and committed offsets while the master is gone.
//
// The master's remoting address comes from the nameserver's answer to REGISTER_BROKER
// (SetMasterAddr); the CommitLog itself is replicated by internal/ha, not here.
package slave
