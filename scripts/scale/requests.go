package main

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

var debugPull = false

const (
	producerGroup = "scale-producer"
	consumerGroup = "scale-check"
	callTimeout   = 30 * time.Second
)

func topicName(i int) string { return fmt.Sprintf("Scale%05d", i) }

// bodyOf is the message sent to a queue.
func bodyOf(topic string, qid int) []byte { return []byte(topic + "/" + strconv.Itoa(qid)) }

func createTopic(c *conn, topic string, queues int) error {
	n := strconv.Itoa(queues)
	req := protocol.NewRequest(protocol.UpdateAndCreateTopic, map[string]string{
		"topic": topic, "defaultTopic": "TBW102", "readQueueNums": n, "writeQueueNums": n,
		"perm": "6", "topicFilterType": "SINGLE_TAG", "topicSysFlag": "0", "order": "false",
	}, nil)
	resp, err := c.call(req, callTimeout)
	if err != nil {
		return err
	}
	return expect(resp, "create "+topic, protocol.Success)
}

// send puts body into one queue with SEND_MESSAGE_V2, trying again after a
// SYSTEM_BUSY (the broker's flow control) as clients do.
func send(c *conn, topic string, qid int, body []byte, uniq string) error {
	for try := 0; ; try++ {
		req := protocol.NewRequest(protocol.SendMessageV2, map[string]string{
			"a": producerGroup, "b": topic, "c": "TBW102", "d": "8", "e": strconv.Itoa(qid), "f": "0",
			"g": strconv.FormatInt(time.Now().UnixMilli(), 10), "h": "0",
			"i": "UNIQ_KEY\x01" + uniq + "\x02", "j": "0", "k": "false", "m": "false",
		}, body)
		resp, err := c.call(req, callTimeout)
		if err != nil {
			return err
		}
		if resp.ResponseCode() == protocol.SystemBusy && try < 100 {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		return expect(resp, fmt.Sprintf("send to %s/%d", topic, qid), protocol.Success)
	}
}

// pull reads up to max messages of a queue from offset; found is false when
// the broker has none there (yet).
func pull(c *conn, topic string, qid int, offset int64, max int) (msgs []*message.MessageExt, found bool, err error) {
	req := protocol.NewRequest(protocol.PullMessage, map[string]string{
		"consumerGroup": consumerGroup, "topic": topic, "queueId": strconv.Itoa(qid),
		"queueOffset": strconv.FormatInt(offset, 10), "maxMsgNums": strconv.Itoa(max), "sysFlag": "4", // FLAG_SUBSCRIPTION: no heartbeat needed
		"commitOffset": "0", "suspendTimeoutMillis": "0", "subscription": "*", "subVersion": "0",
		"expressionType": "TAG",
	}, nil)
	resp, err := c.call(req, callTimeout)
	if err != nil {
		return nil, false, err
	}
	if resp.ResponseCode() != protocol.Success {
		if debugPull {
			fmt.Println("pull", topic, qid, resp.Code, resp.Remark, resp.ExtFields)
		}
		return nil, false, nil
	}
	msgs, err = message.DecodeAll(resp.Body, false)
	return msgs, err == nil && len(msgs) > 0, err
}

// secondBody is the message a second round sends to a queue.
func secondBody(topic string, qid int) []byte { return append(bodyOf(topic, qid), "#2"...) }

// readBack waits until the message sent to a queue is readable and checks it.
func readBack(c *conn, topic string, qid int, deadline time.Time) error {
	return readBackAt(c, topic, qid, 0, bodyOf(topic, qid), deadline)
}

// readBackAt waits until the message at offset of a queue is readable and
// checks that it is want.
func readBackAt(c *conn, topic string, qid int, offset int64, want []byte, deadline time.Time) error {
	for {
		msgs, found, err := pull(c, topic, qid, offset, 1)
		if err != nil {
			return err
		}
		if found {
			if !bytes.Equal(msgs[0].Body, want) || msgs[0].QueueOffset != offset {
				return fmt.Errorf("%s/%d: read %q at offset %d, want %q at %d", topic, qid, msgs[0].Body, msgs[0].QueueOffset, want, offset)
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s/%d: no message", topic, qid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// routeServed reports whether the name server routes topic to brokerName.
func routeServed(c *conn, topic, brokerName string) (bool, error) {
	req := protocol.NewRequest(protocol.GetRouteinfoByTopic, map[string]string{"topic": topic}, nil)
	resp, err := c.call(req, callTimeout)
	if err != nil {
		return false, err
	}
	return resp.ResponseCode() == protocol.Success &&
		bytes.Contains(resp.Body, []byte(`"brokerName":"`+brokerName+`"`)), nil
}

// waitRoute polls the name server until it routes topic to the broker.
func waitRoute(ns *conn, topic, brokerName string, deadline time.Time) error {
	for {
		ok, err := routeServed(ns, topic, brokerName)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no route for %s", topic)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
