package processor

import "github.com/rocketgo/rocketgo/pkg/protocol"

// sendHeader is SendMessageRequestHeader; SEND_MESSAGE_V2 and batches carry it under one-letter
// names (protocol.md §2.3).
type sendHeader struct {
	producerGroup         string
	topic                 string
	defaultTopic          string
	defaultTopicQueueNums int32
	queueID               int32
	sysFlag               int32
	bornTimestamp         int64
	flag                  int32
	properties            string
	reconsumeTimes        int32
	unitMode              bool
	batch                 bool
	maxReconsumeTimes     int32 // -1 when absent
}

// sendFieldNames lists the header's long and short names in the order of sendHeader's fields.
var sendFieldNames = [...][2]string{
	{"producerGroup", "a"}, {"topic", "b"}, {"defaultTopic", "c"}, {"defaultTopicQueueNums", "d"},
	{"queueId", "e"}, {"sysFlag", "f"}, {"bornTimestamp", "g"}, {"flag", "h"}, {"properties", "i"},
	{"reconsumeTimes", "j"}, {"unitMode", "k"}, {"maxReconsumeTimes", "l"}, {"batch", "m"},
}

// parseSendHeader reads either spelling: the one-letter names for SEND_MESSAGE_V2 and
// SEND_BATCH_MESSAGE (so that a missing field is named as the client spells it), the long names
// otherwise.
func parseSendHeader(req *protocol.Command) (sendHeader, error) {
	short := 0
	if req.RequestCode() == protocol.SendMessageV2 || req.RequestCode() == protocol.SendBatchMessage {
		short = 1
	}
	name := func(i int) string { return sendFieldNames[i][short] }
	f := protocol.Fields(req)
	h := sendHeader{
		producerGroup:         f.String(name(0)),
		topic:                 f.String(name(1)),
		defaultTopic:          f.String(name(2)),
		defaultTopicQueueNums: f.Int32(name(3)),
		queueID:               f.Int32(name(4)),
		sysFlag:               f.Int32(name(5)),
		bornTimestamp:         f.Int64(name(6)),
		flag:                  f.Int32(name(7)),
		properties:            f.OptString(name(8), ""),
		reconsumeTimes:        f.OptInt32(name(9), 0),
		unitMode:              f.OptBool(name(10), false),
		maxReconsumeTimes:     f.OptInt32(name(11), -1),
		batch:                 f.OptBool(name(12), false),
	}
	return h, f.Err()
}
