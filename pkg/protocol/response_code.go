package protocol

import "strconv"

// ResponseCode is the code of a response (Java ResponseCode and
// RemotingSysResponseCode).
type ResponseCode int32

// Response codes.
const (
	Success                            ResponseCode = 0
	SystemError                        ResponseCode = 1
	SystemBusy                         ResponseCode = 2
	RequestCodeNotSupported            ResponseCode = 3
	TransactionFailed                  ResponseCode = 4
	FlushDiskTimeout                   ResponseCode = 10
	SlaveNotAvailable                  ResponseCode = 11
	FlushSlaveTimeout                  ResponseCode = 12
	MessageIllegal                     ResponseCode = 13
	ServiceNotAvailable                ResponseCode = 14
	VersionNotSupported                ResponseCode = 15
	NoPermission                       ResponseCode = 16
	TopicNotExist                      ResponseCode = 17
	TopicExistAlready                  ResponseCode = 18
	PullNotFound                       ResponseCode = 19
	PullRetryImmediately               ResponseCode = 20
	PullOffsetMoved                    ResponseCode = 21
	QueryNotFound                      ResponseCode = 22
	SubscriptionParseFailed            ResponseCode = 23
	SubscriptionNotExist               ResponseCode = 24
	SubscriptionNotLatest              ResponseCode = 25
	SubscriptionGroupNotExist          ResponseCode = 26
	FilterDataNotExist                 ResponseCode = 27
	FilterDataNotLatest                ResponseCode = 28
	InvalidParameter                   ResponseCode = 29
	TransactionShouldCommit            ResponseCode = 200
	TransactionShouldRollback          ResponseCode = 201
	TransactionStateUnknow             ResponseCode = 202
	TransactionStateGroupWrong         ResponseCode = 203
	NoBuyerID                          ResponseCode = 204
	NotInCurrentUnit                   ResponseCode = 205
	ConsumerNotOnline                  ResponseCode = 206
	ConsumeMsgTimeout                  ResponseCode = 207
	NoMessage                          ResponseCode = 208
	UpdateAndCreateACLConfigFailed     ResponseCode = 209
	DeleteACLConfigFailed              ResponseCode = 210
	UpdateGlobalWhiteAddrsConfigFailed ResponseCode = 211
	IllegalOperation                   ResponseCode = 604
)

// RocketMQ 5 reuses 209 and 210, 4.9's ACL failure codes, for POP's long polling: a held
// POP_MESSAGE answers POLLING_FULL when the broker holds too many, POLLING_TIMEOUT when its poll
// time ran out with nothing found. String keeps 4.9's names for them.
const (
	PollingFull    ResponseCode = 209
	PollingTimeout ResponseCode = 210
)

var responseCodeNames = map[ResponseCode]string{
	Success:                            "SUCCESS",
	SystemError:                        "SYSTEM_ERROR",
	SystemBusy:                         "SYSTEM_BUSY",
	RequestCodeNotSupported:            "REQUEST_CODE_NOT_SUPPORTED",
	TransactionFailed:                  "TRANSACTION_FAILED",
	FlushDiskTimeout:                   "FLUSH_DISK_TIMEOUT",
	SlaveNotAvailable:                  "SLAVE_NOT_AVAILABLE",
	FlushSlaveTimeout:                  "FLUSH_SLAVE_TIMEOUT",
	MessageIllegal:                     "MESSAGE_ILLEGAL",
	ServiceNotAvailable:                "SERVICE_NOT_AVAILABLE",
	VersionNotSupported:                "VERSION_NOT_SUPPORTED",
	NoPermission:                       "NO_PERMISSION",
	TopicNotExist:                      "TOPIC_NOT_EXIST",
	TopicExistAlready:                  "TOPIC_EXIST_ALREADY",
	PullNotFound:                       "PULL_NOT_FOUND",
	PullRetryImmediately:               "PULL_RETRY_IMMEDIATELY",
	PullOffsetMoved:                    "PULL_OFFSET_MOVED",
	QueryNotFound:                      "QUERY_NOT_FOUND",
	SubscriptionParseFailed:            "SUBSCRIPTION_PARSE_FAILED",
	SubscriptionNotExist:               "SUBSCRIPTION_NOT_EXIST",
	SubscriptionNotLatest:              "SUBSCRIPTION_NOT_LATEST",
	SubscriptionGroupNotExist:          "SUBSCRIPTION_GROUP_NOT_EXIST",
	FilterDataNotExist:                 "FILTER_DATA_NOT_EXIST",
	FilterDataNotLatest:                "FILTER_DATA_NOT_LATEST",
	InvalidParameter:                   "INVALID_PARAMETER",
	TransactionShouldCommit:            "TRANSACTION_SHOULD_COMMIT",
	TransactionShouldRollback:          "TRANSACTION_SHOULD_ROLLBACK",
	TransactionStateUnknow:             "TRANSACTION_STATE_UNKNOW",
	TransactionStateGroupWrong:         "TRANSACTION_STATE_GROUP_WRONG",
	NoBuyerID:                          "NO_BUYER_ID",
	NotInCurrentUnit:                   "NOT_IN_CURRENT_UNIT",
	ConsumerNotOnline:                  "CONSUMER_NOT_ONLINE",
	ConsumeMsgTimeout:                  "CONSUME_MSG_TIMEOUT",
	NoMessage:                          "NO_MESSAGE",
	UpdateAndCreateACLConfigFailed:     "UPDATE_AND_CREATE_ACL_CONFIG_FAILED",
	DeleteACLConfigFailed:              "DELETE_ACL_CONFIG_FAILED",
	UpdateGlobalWhiteAddrsConfigFailed: "UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED",
	IllegalOperation:                   "ILLEGAL_OPERATION",
}

// String returns the Java name of c, or "ResponseCode(N)" for a code Java
// does not define.
func (c ResponseCode) String() string {
	if n, ok := responseCodeNames[c]; ok {
		return n
	}
	return "ResponseCode(" + strconv.Itoa(int(c)) + ")"
}
