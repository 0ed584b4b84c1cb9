package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageClientIDSetter;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

/**
 * DefaultMQProducer's send modes: what each returns (status, msgId, offsetMsgId, queue and queue
 * offset) and what the broker stored for it, read back with a pull consumer.
 */
class ProducerTest {
    /** Sync sends: SEND_OK, the message's UNIQ_KEY as msgId, consecutive offsets per queue, content kept. */
    @Test
    void syncSendReturnsWhereEachMessageWasStored() throws Exception {
        String topic = Rmq.name("T", "Sync");
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQProducer p = cl.producer(Rmq.name("PG", "Sync"));
            List<Message> sent = new ArrayList<>();
            List<SendResult> results = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                Message m = Msgs.message(topic, "TagSync", "sync", i);
                SendResult r = p.send(m);
                sent.add(m);
                results.add(r);
                assertThat(r.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
                assertThat(r.getMsgId()).isEqualTo(MessageClientIDSetter.getUniqID(m));
                assertThat(r.getOffsetMsgId()).hasSize(32);
                assertThat(r.getMessageQueue().getTopic()).isEqualTo(topic);
            }
            assertConsecutiveOffsetsPerQueue(results);
            assertThat(results.stream().map(r -> r.getMessageQueue().getQueueId()).distinct())
                .as("the producer spreads sync sends over every queue").hasSize(4);
            assertStoredAsSent(cl.reader().all(topic, sent.size()), sent, results);
        }
    }

    /** Async sends: every callback reports SEND_OK once, with distinct msgIds; content kept. */
    @Test
    void asyncSendCallsBackOncePerMessage() throws Exception {
        String topic = Rmq.name("T", "Async");
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQProducer p = cl.producer(Rmq.name("PG", "Async"));
            int n = 10;
            CountDownLatch done = new CountDownLatch(n);
            Map<Integer, SendResult> results = new ConcurrentHashMap<>();
            Map<Integer, Throwable> failures = new ConcurrentHashMap<>();
            List<Message> sent = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int seq = i;
                Message m = Msgs.message(topic, "TagAsync", "async", i);
                sent.add(m);
                p.send(m, new SendCallback() {
                    @Override
                    public void onSuccess(SendResult r) {
                        results.put(seq, r);
                        done.countDown();
                    }

                    @Override
                    public void onException(Throwable e) {
                        failures.put(seq, e);
                        done.countDown();
                    }
                });
            }
            assertThat(done.await(30, TimeUnit.SECONDS)).as("every callback ran").isTrue();
            assertThat(failures).isEmpty();
            List<SendResult> ordered = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                SendResult r = results.get(i);
                assertThat(r.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
                assertThat(r.getMsgId()).isEqualTo(MessageClientIDSetter.getUniqID(sent.get(i)));
                ordered.add(r);
            }
            assertStoredAsSent(cl.reader().all(topic, n), sent, ordered);
        }
    }

    /**
     * Oneway sends to one queue: nothing comes back, yet the queue holds each of them once, at
     * offsets 0..n-1. (Their order is not asserted: pipelined sends on one connection are handled
     * concurrently, as by Apache's send thread pool, sendMessageThreadPoolNums = min(cores, 4).)
     */
    @Test
    void onewaySendIsStoredOnce() throws Exception {
        String topic = Rmq.name("T", "Oneway");
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQProducer p = cl.producer(Rmq.name("PG", "Oneway"));
            Reader reader = cl.reader();
            MessageQueue mq = reader.queue(topic, 2);
            Map<String, Message> sent = new HashMap<>();
            for (int i = 0; i < 8; i++) {
                Message m = Msgs.message(topic, "TagOneway", "oneway", i);
                p.sendOneway(m, mq);
                sent.put(MessageClientIDSetter.getUniqID(m), m);
            }
            List<MessageExt> got = reader.from(mq, 0, sent.size());
            assertThat(got).extracting(MessageExt::getMsgId).containsExactlyInAnyOrderElementsOf(sent.keySet());
            assertThat(got).extracting(MessageExt::getQueueOffset).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L);
            for (MessageExt g : got) {
                Msgs.assertSameContent(g, sent.get(g.getMsgId()));
                assertThat(g.getQueueId()).isEqualTo(2);
            }
            assertThat(reader.maxOffset(mq)).as("nothing but the oneway sends in the queue").isEqualTo(sent.size());
        }
    }

    /** A batch: one SendResult whose msgId lists every message's, stored in one queue at consecutive offsets. */
    @Test
    void batchSendStoresEveryMessageInOneQueue() throws Exception {
        String topic = Rmq.name("T", "Batch");
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQProducer p = cl.producer(Rmq.name("PG", "Batch"));
            List<Message> batch = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                batch.add(Msgs.message(topic, "TagBatch", "batch", i));
            }
            SendResult r = p.send(batch);
            assertThat(r.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
            List<String> ids = List.of(r.getMsgId().split(","));
            assertThat(ids).hasSize(batch.size()).doesNotHaveDuplicates();
            List<String> offsetIds = List.of(r.getOffsetMsgId().split(","));
            assertThat(offsetIds).hasSize(batch.size()).doesNotHaveDuplicates();
            Reader reader = cl.reader();
            List<MessageExt> got = reader.from(r.getMessageQueue(), r.getQueueOffset(), batch.size());
            for (int i = 0; i < batch.size(); i++) {
                MessageExt g = got.get(i);
                Msgs.assertSameContent(g, batch.get(i));
                assertThat(g.getMsgId()).isEqualTo(ids.get(i));
                assertThat(Msgs.offsetMsgId(g)).isEqualTo(offsetIds.get(i));
                assertThat(g.getQueueOffset()).isEqualTo(r.getQueueOffset() + i);
            }
        }
    }

    /** Ordered sends: the selector's queue is the one used, and each order's steps are stored in order. */
    @Test
    void orderedSendKeepsEachOrderInItsQueue() throws Exception {
        String topic = Rmq.name("T", "Ordered");
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQProducer p = cl.producer(Rmq.name("PG", "Ordered"));
            Map<Integer, List<Message>> byOrder = new HashMap<>();
            for (int step = 0; step < 6; step++) {
                for (int order = 0; order < 5; order++) {
                    Message m = Msgs.message(topic, "TagOrder" + order, "order" + order, step);
                    SendResult r = p.send(m, (mqs, msg, arg) -> mqs.get((Integer) arg % mqs.size()), order);
                    assertThat(r.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
                    assertThat(r.getMessageQueue().getQueueId()).as("queue chosen by the selector").isEqualTo(order % 4);
                    byOrder.computeIfAbsent(order, k -> new ArrayList<>()).add(m);
                }
            }
            List<MessageExt> stored = cl.reader().all(topic, 30);
            for (int order = 0; order < 5; order++) {
                String tag = "TagOrder" + order;
                List<MessageExt> mine = stored.stream().filter(m -> tag.equals(m.getTags())).toList();
                assertThat(mine).extracting(MessageExt::getQueueId).containsOnly(order % 4);
                assertThat(mine).extracting(Msgs::seq).as("steps of order %d in queue order", order)
                    .containsExactly(0, 1, 2, 3, 4, 5);
                for (int step = 0; step < 6; step++) {
                    Msgs.assertSameContent(mine.get(step), byOrder.get(order).get(step));
                }
            }
        }
    }

    private static void assertConsecutiveOffsetsPerQueue(List<SendResult> results) {
        Map<Integer, Long> next = new HashMap<>();
        for (SendResult r : results) {
            int q = r.getMessageQueue().getQueueId();
            long want = next.getOrDefault(q, 0L);
            assertThat(r.getQueueOffset()).as("offset in queue %d", q).isEqualTo(want);
            next.put(q, want + 1);
        }
    }

    /** Each stored message is at the queue and offset its SendResult named, with the content sent. */
    private static void assertStoredAsSent(List<MessageExt> stored, List<Message> sent, List<SendResult> results) {
        assertThat(stored).hasSameSizeAs(sent);
        Map<String, MessageExt> byId = new HashMap<>();
        stored.forEach(m -> byId.put(m.getMsgId(), m));
        for (int i = 0; i < sent.size(); i++) {
            SendResult r = results.get(i);
            MessageExt g = byId.get(r.getMsgId());
            assertThat(g).as("stored message with msgId %s", r.getMsgId()).isNotNull();
            Msgs.assertSameContent(g, sent.get(i));
            assertThat(g.getQueueId()).isEqualTo(r.getMessageQueue().getQueueId());
            assertThat(g.getQueueOffset()).isEqualTo(r.getQueueOffset());
            assertThat(Msgs.offsetMsgId(g)).isEqualTo(r.getOffsetMsgId());
            assertThat(g.getReconsumeTimes()).isZero();
            assertThat(g.getBornTimestamp()).isLessThanOrEqualTo(g.getStoreTimestamp());
        }
    }
}
