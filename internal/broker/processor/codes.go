package processor

import (
	"errors"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// responseCodes is the one table from the services' outcomes to RocketMQ response codes. Every
// answer the broker gives over remoting takes its code from here: failures, the statuses of
// stored sends and of pulls, and (through policy.PutOutcome and policy.PullStatus) the store's.
var responseCodes = [...]protocol.ResponseCode{
	outcome.OK:                      protocol.Success,
	outcome.SystemError:             protocol.SystemError,
	outcome.SystemBusy:              protocol.SystemBusy,
	outcome.NoPermission:            protocol.NoPermission,
	outcome.TopicNotExist:           protocol.TopicNotExist,
	outcome.GroupNotExist:           protocol.SubscriptionGroupNotExist,
	outcome.MessageIllegal:          protocol.MessageIllegal,
	outcome.SubscriptionNotExist:    protocol.SubscriptionNotExist,
	outcome.SubscriptionNotLatest:   protocol.SubscriptionNotLatest,
	outcome.SubscriptionParseFailed: protocol.SubscriptionParseFailed,
	outcome.FilterDataNotExist:      protocol.FilterDataNotExist,
	outcome.QueryNotFound:           protocol.QueryNotFound,
	outcome.ConsumerNotOnline:       protocol.ConsumerNotOnline,
	outcome.ClientTimeout:           protocol.ConsumeMsgTimeout,
	outcome.SlaveNotAvailable:       protocol.SlaveNotAvailable,
	outcome.FlushDiskTimeout:        protocol.FlushDiskTimeout,
	outcome.FlushSlaveTimeout:       protocol.FlushSlaveTimeout,
	outcome.ServiceNotAvailable:     protocol.ServiceNotAvailable,
	outcome.PullNotFound:            protocol.PullNotFound,
	outcome.PullRetryImmediately:    protocol.PullRetryImmediately,
	outcome.PullOffsetMoved:         protocol.PullOffsetMoved,
	outcome.IllegalOperation:        protocol.IllegalOperation,
}

// responseCode is the response code of an outcome; SYSTEM_ERROR for a kind the table lacks.
func responseCode(k outcome.Kind) protocol.ResponseCode {
	if int(k) < len(responseCodes) {
		return responseCodes[k]
	}
	return protocol.SystemError
}

// failure is the answer to req for a failed request: the code of err's kind with its remark; a
// malformed header field is SYSTEM_ERROR naming the field, as Java answers.
func failure(req *protocol.Command, err error) *protocol.Command {
	var fe *protocol.FieldError
	if errors.As(err, &fe) {
		return protocol.NewResponse(req, protocol.SystemError, fe.Error())
	}
	k, remark := outcome.Of(err)
	return protocol.NewResponse(req, responseCode(k), remark)
}

// respond turns a handler's outcome into the response to req: resp as is when err is nil, else
// failure's answer.
func respond(req *protocol.Command, resp *protocol.Command, err error) *protocol.Command {
	if err == nil {
		return resp
	}
	return failure(req, err)
}

// success is an empty SUCCESS answer.
func success(req *protocol.Command) *protocol.Command {
	return protocol.NewResponse(req, protocol.Success, "")
}
