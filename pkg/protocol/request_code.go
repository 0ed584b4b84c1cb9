package protocol

import "strconv"

// RequestCode is the code of a request (Java RequestCode). Like Java's RemotingCommand.code it is
// 32 bits wide: RocketMQ 5's POP codes start at 200050.
type RequestCode int32

// Request codes.
const (
	SendMessage                      RequestCode = 10
	PullMessage                      RequestCode = 11
	QueryMessage                     RequestCode = 12
	QueryBrokerOffset                RequestCode = 13
	QueryConsumerOffset              RequestCode = 14
	UpdateConsumerOffset             RequestCode = 15
	UpdateAndCreateTopic             RequestCode = 17
	GetAllTopicConfig                RequestCode = 21
	GetTopicConfigList               RequestCode = 22
	GetTopicNameList                 RequestCode = 23
	UpdateBrokerConfig               RequestCode = 25
	GetBrokerConfig                  RequestCode = 26
	TriggerDeleteFiles               RequestCode = 27
	GetBrokerRuntimeInfo             RequestCode = 28
	SearchOffsetByTimestamp          RequestCode = 29
	GetMaxOffset                     RequestCode = 30
	GetMinOffset                     RequestCode = 31
	GetEarliestMsgStoreTime          RequestCode = 32
	ViewMessageByID                  RequestCode = 33
	HeartBeat                        RequestCode = 34
	UnregisterClient                 RequestCode = 35
	ConsumerSendMsgBack              RequestCode = 36
	EndTransaction                   RequestCode = 37
	GetConsumerListByGroup           RequestCode = 38
	CheckTransactionState            RequestCode = 39
	NotifyConsumerIdsChanged         RequestCode = 40
	LockBatchMQ                      RequestCode = 41
	UnlockBatchMQ                    RequestCode = 42
	GetAllConsumerOffset             RequestCode = 43
	GetAllDelayOffset                RequestCode = 45
	CheckClientConfig                RequestCode = 46
	GetTimerCheckPoint               RequestCode = 60
	GetTimerMetrics                  RequestCode = 61
	UpdateAndCreateACLConfig         RequestCode = 50
	DeleteACLConfig                  RequestCode = 51
	GetBrokerClusterACLInfo          RequestCode = 52
	UpdateGlobalWhiteAddrsConfig     RequestCode = 53
	GetBrokerClusterACLConfig        RequestCode = 54
	PutKVConfig                      RequestCode = 100
	GetKVConfig                      RequestCode = 101
	DeleteKVConfig                   RequestCode = 102
	RegisterBroker                   RequestCode = 103
	UnregisterBroker                 RequestCode = 104
	GetRouteinfoByTopic              RequestCode = 105
	GetBrokerClusterInfo             RequestCode = 106
	UpdateAndCreateSubscriptionGroup RequestCode = 200
	GetAllSubscriptionGroupConfig    RequestCode = 201
	GetTopicStatsInfo                RequestCode = 202
	GetConsumerConnectionList        RequestCode = 203
	GetProducerConnectionList        RequestCode = 204
	WipeWritePermOfBroker            RequestCode = 205
	GetAllTopicListFromNameserver    RequestCode = 206
	DeleteSubscriptionGroup          RequestCode = 207
	GetConsumeStats                  RequestCode = 208
	SuspendConsumer                  RequestCode = 209
	ResumeConsumer                   RequestCode = 210
	ResetConsumerOffsetInConsumer    RequestCode = 211
	ResetConsumerOffsetInBroker      RequestCode = 212
	AdjustConsumerThreadPool         RequestCode = 213
	WhoConsumeTheMessage             RequestCode = 214
	DeleteTopicInBroker              RequestCode = 215
	DeleteTopicInNamesrv             RequestCode = 216
	GetKVListByNamespace             RequestCode = 219
	ResetConsumerClientOffset        RequestCode = 220
	GetConsumerStatusFromClient      RequestCode = 221
	InvokeBrokerToResetOffset        RequestCode = 222
	InvokeBrokerToGetConsumerStatus  RequestCode = 223
	GetTopicsByCluster               RequestCode = 224
	QueryTopicConsumeByWho           RequestCode = 300
	RegisterFilterServer             RequestCode = 301
	RegisterMessageFilterClass       RequestCode = 302
	QueryConsumeTimeSpan             RequestCode = 303
	GetSystemTopicListFromNS         RequestCode = 304
	GetSystemTopicListFromBroker     RequestCode = 305
	CleanExpiredConsumeQueue         RequestCode = 306
	GetConsumerRunningInfo           RequestCode = 307
	QueryCorrectionOffset            RequestCode = 308
	ConsumeMessageDirectly           RequestCode = 309
	SendMessageV2                    RequestCode = 310
	GetUnitTopicList                 RequestCode = 311
	GetHasUnitSubTopicList           RequestCode = 312
	GetHasUnitSubUnunitTopicList     RequestCode = 313
	CloneGroupOffset                 RequestCode = 314
	ViewBrokerStatsData              RequestCode = 315
	CleanUnusedTopic                 RequestCode = 316
	GetBrokerConsumeStats            RequestCode = 317
	UpdateNamesrvConfig              RequestCode = 318
	GetNamesrvConfig                 RequestCode = 319
	SendBatchMessage                 RequestCode = 320
	QueryConsumeQueue                RequestCode = 321
	QueryDataVersion                 RequestCode = 322
	ResumeCheckHalfMessage           RequestCode = 323
	SendReplyMessage                 RequestCode = 324
	SendReplyMessageV2               RequestCode = 325
	PushReplyMessageToClient         RequestCode = 326
	AddWritePermOfBroker             RequestCode = 327
	GetAllProducerInfo               RequestCode = 328
	DeleteExpiredCommitLog           RequestCode = 329
	RecallMessage                    RequestCode = 370
)

var requestCodeNames = map[RequestCode]string{
	SendMessage:                      "SEND_MESSAGE",
	PullMessage:                      "PULL_MESSAGE",
	QueryMessage:                     "QUERY_MESSAGE",
	QueryBrokerOffset:                "QUERY_BROKER_OFFSET",
	QueryConsumerOffset:              "QUERY_CONSUMER_OFFSET",
	UpdateConsumerOffset:             "UPDATE_CONSUMER_OFFSET",
	UpdateAndCreateTopic:             "UPDATE_AND_CREATE_TOPIC",
	GetAllTopicConfig:                "GET_ALL_TOPIC_CONFIG",
	GetTopicConfigList:               "GET_TOPIC_CONFIG_LIST",
	GetTopicNameList:                 "GET_TOPIC_NAME_LIST",
	UpdateBrokerConfig:               "UPDATE_BROKER_CONFIG",
	GetBrokerConfig:                  "GET_BROKER_CONFIG",
	TriggerDeleteFiles:               "TRIGGER_DELETE_FILES",
	GetBrokerRuntimeInfo:             "GET_BROKER_RUNTIME_INFO",
	SearchOffsetByTimestamp:          "SEARCH_OFFSET_BY_TIMESTAMP",
	GetMaxOffset:                     "GET_MAX_OFFSET",
	GetMinOffset:                     "GET_MIN_OFFSET",
	GetEarliestMsgStoreTime:          "GET_EARLIEST_MSG_STORETIME",
	ViewMessageByID:                  "VIEW_MESSAGE_BY_ID",
	HeartBeat:                        "HEART_BEAT",
	UnregisterClient:                 "UNREGISTER_CLIENT",
	ConsumerSendMsgBack:              "CONSUMER_SEND_MSG_BACK",
	EndTransaction:                   "END_TRANSACTION",
	GetConsumerListByGroup:           "GET_CONSUMER_LIST_BY_GROUP",
	CheckTransactionState:            "CHECK_TRANSACTION_STATE",
	NotifyConsumerIdsChanged:         "NOTIFY_CONSUMER_IDS_CHANGED",
	LockBatchMQ:                      "LOCK_BATCH_MQ",
	UnlockBatchMQ:                    "UNLOCK_BATCH_MQ",
	GetAllConsumerOffset:             "GET_ALL_CONSUMER_OFFSET",
	GetAllDelayOffset:                "GET_ALL_DELAY_OFFSET",
	CheckClientConfig:                "CHECK_CLIENT_CONFIG",
	GetTimerCheckPoint:               "GET_TIMER_CHECK_POINT",
	GetTimerMetrics:                  "GET_TIMER_METRICS",
	UpdateAndCreateACLConfig:         "UPDATE_AND_CREATE_ACL_CONFIG",
	DeleteACLConfig:                  "DELETE_ACL_CONFIG",
	GetBrokerClusterACLInfo:          "GET_BROKER_CLUSTER_ACL_INFO",
	UpdateGlobalWhiteAddrsConfig:     "UPDATE_GLOBAL_WHITE_ADDRS_CONFIG",
	GetBrokerClusterACLConfig:        "GET_BROKER_CLUSTER_ACL_CONFIG",
	PutKVConfig:                      "PUT_KV_CONFIG",
	GetKVConfig:                      "GET_KV_CONFIG",
	DeleteKVConfig:                   "DELETE_KV_CONFIG",
	RegisterBroker:                   "REGISTER_BROKER",
	UnregisterBroker:                 "UNREGISTER_BROKER",
	GetRouteinfoByTopic:              "GET_ROUTEINFO_BY_TOPIC",
	GetBrokerClusterInfo:             "GET_BROKER_CLUSTER_INFO",
	UpdateAndCreateSubscriptionGroup: "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP",
	GetAllSubscriptionGroupConfig:    "GET_ALL_SUBSCRIPTIONGROUP_CONFIG",
	GetTopicStatsInfo:                "GET_TOPIC_STATS_INFO",
	GetConsumerConnectionList:        "GET_CONSUMER_CONNECTION_LIST",
	GetProducerConnectionList:        "GET_PRODUCER_CONNECTION_LIST",
	WipeWritePermOfBroker:            "WIPE_WRITE_PERM_OF_BROKER",
	GetAllTopicListFromNameserver:    "GET_ALL_TOPIC_LIST_FROM_NAMESERVER",
	DeleteSubscriptionGroup:          "DELETE_SUBSCRIPTIONGROUP",
	GetConsumeStats:                  "GET_CONSUME_STATS",
	SuspendConsumer:                  "SUSPEND_CONSUMER",
	ResumeConsumer:                   "RESUME_CONSUMER",
	ResetConsumerOffsetInConsumer:    "RESET_CONSUMER_OFFSET_IN_CONSUMER",
	ResetConsumerOffsetInBroker:      "RESET_CONSUMER_OFFSET_IN_BROKER",
	AdjustConsumerThreadPool:         "ADJUST_CONSUMER_THREAD_POOL",
	WhoConsumeTheMessage:             "WHO_CONSUME_THE_MESSAGE",
	DeleteTopicInBroker:              "DELETE_TOPIC_IN_BROKER",
	DeleteTopicInNamesrv:             "DELETE_TOPIC_IN_NAMESRV",
	GetKVListByNamespace:             "GET_KVLIST_BY_NAMESPACE",
	ResetConsumerClientOffset:        "RESET_CONSUMER_CLIENT_OFFSET",
	GetConsumerStatusFromClient:      "GET_CONSUMER_STATUS_FROM_CLIENT",
	InvokeBrokerToResetOffset:        "INVOKE_BROKER_TO_RESET_OFFSET",
	InvokeBrokerToGetConsumerStatus:  "INVOKE_BROKER_TO_GET_CONSUMER_STATUS",
	GetTopicsByCluster:               "GET_TOPICS_BY_CLUSTER",
	QueryTopicConsumeByWho:           "QUERY_TOPIC_CONSUME_BY_WHO",
	RegisterFilterServer:             "REGISTER_FILTER_SERVER",
	RegisterMessageFilterClass:       "REGISTER_MESSAGE_FILTER_CLASS",
	QueryConsumeTimeSpan:             "QUERY_CONSUME_TIME_SPAN",
	GetSystemTopicListFromNS:         "GET_SYSTEM_TOPIC_LIST_FROM_NS",
	GetSystemTopicListFromBroker:     "GET_SYSTEM_TOPIC_LIST_FROM_BROKER",
	CleanExpiredConsumeQueue:         "CLEAN_EXPIRED_CONSUMEQUEUE",
	GetConsumerRunningInfo:           "GET_CONSUMER_RUNNING_INFO",
	QueryCorrectionOffset:            "QUERY_CORRECTION_OFFSET",
	ConsumeMessageDirectly:           "CONSUME_MESSAGE_DIRECTLY",
	SendMessageV2:                    "SEND_MESSAGE_V2",
	GetUnitTopicList:                 "GET_UNIT_TOPIC_LIST",
	GetHasUnitSubTopicList:           "GET_HAS_UNIT_SUB_TOPIC_LIST",
	GetHasUnitSubUnunitTopicList:     "GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST",
	CloneGroupOffset:                 "CLONE_GROUP_OFFSET",
	ViewBrokerStatsData:              "VIEW_BROKER_STATS_DATA",
	CleanUnusedTopic:                 "CLEAN_UNUSED_TOPIC",
	GetBrokerConsumeStats:            "GET_BROKER_CONSUME_STATS",
	UpdateNamesrvConfig:              "UPDATE_NAMESRV_CONFIG",
	GetNamesrvConfig:                 "GET_NAMESRV_CONFIG",
	SendBatchMessage:                 "SEND_BATCH_MESSAGE",
	QueryConsumeQueue:                "QUERY_CONSUME_QUEUE",
	QueryDataVersion:                 "QUERY_DATA_VERSION",
	ResumeCheckHalfMessage:           "RESUME_CHECK_HALF_MESSAGE",
	SendReplyMessage:                 "SEND_REPLY_MESSAGE",
	SendReplyMessageV2:               "SEND_REPLY_MESSAGE_V2",
	PushReplyMessageToClient:         "PUSH_REPLY_MESSAGE_TO_CLIENT",
	AddWritePermOfBroker:             "ADD_WRITE_PERM_OF_BROKER",
	GetAllProducerInfo:               "GET_ALL_PRODUCER_INFO",
	DeleteExpiredCommitLog:           "DELETE_EXPIRED_COMMITLOG",
	RecallMessage:                    "RECALL_MESSAGE",
}

// String returns the Java name of c, or "RequestCode(N)" for a code neither Java 4.9.8 nor
// the 5.x codes served here define.
func (c RequestCode) String() string {
	if n, ok := requestCodeNames[c]; ok {
		return n
	}
	return "RequestCode(" + strconv.Itoa(int(c)) + ")"
}
