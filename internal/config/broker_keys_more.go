package config

func haKeys() []brokerKey {
	return section("HA (classic master/slave)",
		brokerKey{name: "haSendHeartbeatInterval", def: "5000", check: positive,
			doc:   "Slave reports its offset at least this often.",
			field: func(c *Broker) any { return &c.HASendHeartbeatInterval },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.HA.HeartbeatInterval = c.HASendHeartbeatInterval.Duration()
			}},
		brokerKey{name: "haHousekeepingInterval", def: "20000", check: positive,
			doc:   "Drop an HA connection silent this long.",
			field: func(c *Broker) any { return &c.HAHousekeepingInterval },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.HA.HousekeepingInterval = c.HAHousekeepingInterval.Duration()
			}},
		brokerKey{name: "haTransferBatchSize", def: "32768", check: positive,
			doc:   "Largest HA data frame.",
			field: func(c *Broker) any { return &c.HATransferBatchSize },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.HA.TransferBatchSize = c.HATransferBatchSize }},
		brokerKey{name: "haSlaveFallbehindMax", def: "268435456",
			doc:   "SYNC_MASTER waits for a slave only if it is less than this far behind.",
			field: func(c *Broker) any { return &c.HASlaveFallbehindMax },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.HA.SlaveFallbehindMax = int64(c.HASlaveFallbehindMax) }},
		brokerKey{name: "haMasterAddress",
			doc:   "Slave: master HA address; empty = learn it from the name server.",
			field: func(c *Broker) any { return &c.HAMasterAddress },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.HA.MasterAddress = c.HAMasterAddress }},
		brokerKey{name: "slaveTimeout", def: "3000", check: positive,
			doc:   "SYNC_MASTER: answer FLUSH_SLAVE_TIMEOUT after this long.",
			field: func(c *Broker) any { return &c.SlaveTimeout },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.HA.SlaveTimeout = c.SlaveTimeout.Duration() }},
		brokerKey{name: "slaveReadEnable",
			doc:   "Let consumers read from a slave when the master's data is cold.",
			field: func(c *Broker) any { return &c.SlaveReadEnable },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.SlaveReadEnable = c.SlaveReadEnable }},
	)
}

func pullKeys() []brokerKey {
	return section("Pull",
		brokerKey{name: "longPollingEnable", def: "true",
			doc:   "Hold pulls that find nothing until a message arrives.",
			field: func(c *Broker) any { return &c.LongPollingEnable },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.LongPollingEnable = c.LongPollingEnable }},
		brokerKey{name: "shortPollingTimeMills", def: "1000", check: positive,
			doc:   "Hold time when long polling is off.",
			field: func(c *Broker) any { return &c.ShortPollingTimeMills },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.ShortPollingTime = c.ShortPollingTimeMills.Duration() }},
		brokerKey{name: "accessMessageInMemoryMaxRatio", def: "40", check: percent,
			doc:   "% of RAM regarded as page cache when deciding if data is \"in memory\" (10 less on a slave).",
			field: func(c *Broker) any { return &c.AccessMessageInMemoryMaxRatio },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.AccessMessageInMemoryMaxRatio = c.AccessMessageInMemoryMaxRatio
			}},
		brokerKey{name: "maxTransferBytesOnMessageInMemory", def: "262144", check: positive,
			doc:   "Pull size limit for data in memory.",
			field: func(c *Broker) any { return &c.MaxTransferBytesOnMessageInMemory },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.MaxTransferBytesOnMessageInMemory = c.MaxTransferBytesOnMessageInMemory
			}},
		brokerKey{name: "maxTransferCountOnMessageInMemory", def: "32", check: positive,
			doc:   "Pull count limit for data in memory.",
			field: func(c *Broker) any { return &c.MaxTransferCountOnMessageInMemory },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.MaxTransferCountOnMessageInMemory = c.MaxTransferCountOnMessageInMemory
			}},
		brokerKey{name: "maxTransferBytesOnMessageInDisk", def: "65536", check: positive,
			doc:   "Pull size limit for data on disk.",
			field: func(c *Broker) any { return &c.MaxTransferBytesOnMessageInDisk },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.MaxTransferBytesOnMessageInDisk = c.MaxTransferBytesOnMessageInDisk
			}},
		brokerKey{name: "maxTransferCountOnMessageInDisk", def: "8", check: positive,
			doc:   "Pull count limit for data on disk.",
			field: func(c *Broker) any { return &c.MaxTransferCountOnMessageInDisk },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.MaxTransferCountOnMessageInDisk = c.MaxTransferCountOnMessageInDisk
			}},
		brokerKey{name: "notifyConsumerIdsChangedEnable", def: "true",
			doc:   "Tell consumers when their group's membership changes (NOTIFY_CONSUMER_IDS_CHANGED); each group can turn it off too.",
			field: func(c *Broker) any { return &c.NotifyConsumerIdsChangedEnable },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.NotifyConsumerIdsChangedEnable = c.NotifyConsumerIdsChangedEnable
			}},
		brokerKey{name: "litePullMessageEnable", def: "true",
			doc:   "Serve the 5.x lite pull consumer's LITE_PULL_MESSAGE.",
			field: func(c *Broker) any { return &c.LitePullMessageEnable },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.LitePullMessageEnable = c.LitePullMessageEnable }},
	)
}

func topicKeys() []brokerKey {
	return section("Topics, groups, delay, transactions",
		brokerKey{name: "autoCreateTopicEnable", def: "true",
			doc:   "Create unknown topics on send (TBW102 is registered).",
			field: func(c *Broker) any { return &c.AutoCreateTopicEnable },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.AutoCreateTopicEnable = c.AutoCreateTopicEnable }},
		brokerKey{name: "autoCreateSubscriptionGroup", def: "true",
			doc:   "Create unknown consumer groups.",
			field: func(c *Broker) any { return &c.AutoCreateSubscriptionGroup },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.AutoCreateSubscriptionGroup = c.AutoCreateSubscriptionGroup
			}},
		brokerKey{name: "defaultTopicQueueNums", def: "8", check: positive,
			doc:   "Queues of an auto-created topic.",
			field: func(c *Broker) any { return &c.DefaultTopicQueueNums },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.DefaultTopicQueueNums = c.DefaultTopicQueueNums }},
		brokerKey{name: "clusterTopicEnable", def: "true",
			doc:   "Topic named after the cluster is readable and writable.",
			field: func(c *Broker) any { return &c.ClusterTopicEnable },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.ClusterTopicEnable = c.ClusterTopicEnable }},
		brokerKey{name: "brokerTopicEnable", def: "true",
			doc:   "Topic named after the broker is readable and writable.",
			field: func(c *Broker) any { return &c.BrokerTopicEnable },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.BrokerTopicEnable = c.BrokerTopicEnable }},
		brokerKey{name: "traceTopicEnable",
			doc:   "Create the message-trace topic.",
			field: func(c *Broker) any { return &c.TraceTopicEnable },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.TraceTopicEnable = c.TraceTopicEnable }},
		brokerKey{name: "msgTraceTopicName", def: DefaultTraceTopic,
			doc:   "Name of the message-trace topic.",
			field: func(c *Broker) any { return &c.MsgTraceTopicName },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.MsgTraceTopicName = c.MsgTraceTopicName }},
		brokerKey{name: "enablePropertyFilter",
			doc:   "Allow SQL92 subscriptions.",
			field: func(c *Broker) any { return &c.EnablePropertyFilter },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.EnablePropertyFilter = c.EnablePropertyFilter }},
		brokerKey{name: "filterSupportRetry",
			doc:   "Apply SQL92 filters to retry topics too.",
			field: func(c *Broker) any { return &c.FilterSupportRetry }},
		brokerKey{name: "storeReplyMessageEnable", def: "true",
			doc:   "Store request-reply answers in the reply topic besides pushing them to the requester.",
			field: func(c *Broker) any { return &c.StoreReplyMessageEnable },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.StoreReplyMessageEnable = c.StoreReplyMessageEnable }},
		brokerKey{name: "messageDelayLevel", def: DefaultMessageDelayLevel,
			doc:   "Delay levels (units s, m, h, d).",
			field: func(c *Broker) any { return &c.MessageDelayLevel },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.DelayLevels, _ = c.DelayLevels() // checked by Validate
			}},
		brokerKey{name: "flushDelayOffsetInterval", def: "10000", check: positive,
			doc:   "Persist delayOffset.json this often.",
			field: func(c *Broker) any { return &c.FlushDelayOffsetInterval },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.FlushDelayOffsetInterval = c.FlushDelayOffsetInterval.Duration()
			}},
		brokerKey{name: "transactionTimeOut", def: "6000", check: positive,
			doc:   "A half message older than this is checked.",
			field: func(c *Broker) any { return &c.TransactionTimeOut },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.TransactionTimeOut = c.TransactionTimeOut.Duration() }},
		brokerKey{name: "transactionCheckMax", def: "15",
			doc:   "Checks before a half message is dropped.",
			field: func(c *Broker) any { return &c.TransactionCheckMax },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.TransactionCheckMax = c.TransactionCheckMax }},
		brokerKey{name: "transactionCheckInterval", def: "60000", check: positive,
			doc:   "How often half messages are scanned.",
			field: func(c *Broker) any { return &c.TransactionCheckInterval },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.TransactionCheckInterval = c.TransactionCheckInterval.Duration()
			}},
		brokerKey{name: "rejectTransactionMessage",
			doc:   "Refuse transactional sends.",
			field: func(c *Broker) any { return &c.RejectTransactionMessage },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.RejectTransactionMessage = c.RejectTransactionMessage }},
	)
}

func registrationKeys() []brokerKey {
	return section("Name-server registration, clients, offsets",
		brokerKey{name: "registerNameServerPeriod", def: "30000", check: positive,
			doc:   "Re-register this often. Clamped to 10000-60000 like Java.",
			field: func(c *Broker) any { return &c.RegisterNameServerPeriod },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.RegisterPeriod = c.RegisterNameServerPeriod.Duration() }},
		brokerKey{name: "registerBrokerTimeoutMills", def: "6000", check: positive,
			doc:   "Timeout of one registration.",
			field: func(c *Broker) any { return &c.RegisterBrokerTimeoutMills },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.RegisterTimeout = c.RegisterBrokerTimeoutMills.Duration()
			}},
		brokerKey{name: "forceRegister", def: "true",
			doc:   "Register every period; false registers only when a name server's data version differs (QUERY_DATA_VERSION).",
			field: func(c *Broker) any { return &c.ForceRegister },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.ForceRegister = c.ForceRegister }},
		brokerKey{name: "compressedRegister",
			doc:   "Compress the registration body.",
			field: func(c *Broker) any { return &c.CompressedRegister },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.CompressedRegister = c.CompressedRegister }},
		brokerKey{name: "channelExpiredTimeout", def: "120000", check: positive,
			doc:   "Drop a client not heard from this long.",
			field: func(c *Broker) any { return &c.ChannelExpiredTimeout },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.ChannelExpiredTimeout = c.ChannelExpiredTimeout.Duration()
			}},
		brokerKey{name: "flushConsumerOffsetInterval", def: "5000", check: positive,
			doc:   "Persist consumerOffset.json this often.",
			field: func(c *Broker) any { return &c.FlushConsumerOffsetInterval },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.FlushConsumerOffsetInterval = c.FlushConsumerOffsetInterval.Duration()
			}},
	)
}

func flowControlKeys() []brokerKey {
	return section("Flow control",
		brokerKey{name: "brokerFastFailureEnable", def: "true",
			doc:   "Answer SYSTEM_BUSY to requests that waited too long in a queue.",
			field: func(c *Broker) any { return &c.BrokerFastFailureEnable }},
		brokerKey{name: "waitTimeMillsInSendQueue", def: "200",
			doc:   "Longest wait of a send request.",
			field: func(c *Broker) any { return &c.WaitTimeMillsInSendQueue }},
		brokerKey{name: "waitTimeMillsInPullQueue", def: "5000",
			doc:   "Longest wait of a pull request.",
			field: func(c *Broker) any { return &c.WaitTimeMillsInPullQueue }},
		brokerKey{name: "waitTimeMillsInHeartbeatQueue", def: "31000",
			doc:   "Longest wait of a heartbeat.",
			field: func(c *Broker) any { return &c.WaitTimeMillsInHeartbeatQueue }},
		brokerKey{name: "waitTimeMillsInTransactionQueue", def: "3000",
			doc:   "Longest wait of an end-transaction request.",
			field: func(c *Broker) any { return &c.WaitTimeMillsInTransactionQueue }},
		brokerKey{name: "osPageCacheBusyTimeOutMills", def: "1000", check: positive,
			doc:   "A put holding the CommitLog lock longer than this marks the store busy.",
			field: func(c *Broker) any { return &c.OsPageCacheBusyTimeOutMills },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.OSPageCacheBusyTimeout = c.OsPageCacheBusyTimeOutMills.Duration()
			}},
	)
}
