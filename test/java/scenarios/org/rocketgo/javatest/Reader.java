package org.rocketgo.javatest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * Reads back what the broker stored, with the official DefaultMQPullConsumer (PULL_MESSAGE from a
 * given offset, no group offsets involved), so scenarios can compare it with what they sent.
 */
final class Reader {
    private final DefaultMQPullConsumer c;

    Reader(DefaultMQPullConsumer c) {
        this.c = c;
    }

    /** The queues of topic the name server routes (for reading). */
    List<MessageQueue> queues(String topic) throws MQClientException {
        List<MessageQueue> mqs = new ArrayList<>(c.fetchSubscribeMessageQueues(topic));
        mqs.sort(Comparator.comparing(MessageQueue::getBrokerName).thenComparingInt(MessageQueue::getQueueId));
        return mqs;
    }

    /** The queue of topic with id queueId. */
    MessageQueue queue(String topic, int queueId) throws MQClientException {
        return queues(topic).stream().filter(q -> q.getQueueId() == queueId).findFirst()
            .orElseThrow(() -> new AssertionError("no queue " + queueId + " in the route of " + topic));
    }

    /** Waits until every queue of topic together holds at least n messages and returns them all. */
    List<MessageExt> all(String topic, int n) {
        List<MessageExt> got = new ArrayList<>();
        Wait.until(n + " messages are stored in " + topic + " (read " + got.size() + ")", () -> {
            got.clear();
            try {
                for (MessageQueue mq : queues(topic)) {
                    got.addAll(read(mq, 0, Integer.MAX_VALUE));
                }
            } catch (Exception e) {
                return false;
            }
            return got.size() >= n;
        });
        return got;
    }

    /** Waits until mq holds at least n messages from offset from and returns the first n. */
    List<MessageExt> from(MessageQueue mq, long from, int n) {
        List<MessageExt> got = new ArrayList<>();
        Wait.until(n + " messages are stored in " + mq + " from offset " + from, () -> {
            got.clear();
            try {
                got.addAll(read(mq, from, n));
            } catch (Exception e) {
                return false;
            }
            return got.size() >= n;
        });
        return got.subList(0, n);
    }

    /** Up to max messages of mq from offset from, in queue order. */
    List<MessageExt> read(MessageQueue mq, long from, int max) throws Exception {
        List<MessageExt> got = new ArrayList<>();
        long offset = from;
        while (got.size() < max) {
            PullResult r = c.pull(mq, "*", offset, Math.min(32, max - got.size()), 5000);
            if (r.getPullStatus() != PullStatus.FOUND) {
                break;
            }
            got.addAll(r.getMsgFoundList());
            offset = r.getNextBeginOffset();
        }
        return got;
    }

    /** The broker's max offset of mq (GET_MAX_OFFSET). */
    long maxOffset(MessageQueue mq) throws MQClientException {
        return c.maxOffset(mq);
    }
}
