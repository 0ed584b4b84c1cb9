package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;

/** DefaultMQPushConsumer: clustering, broadcasting, orderly and tag subscriptions. */
class PushConsumerTest {
    /** A listener that records every delivery under the consumer's name and acknowledges it. */
    static MessageListenerConcurrently recording(Collector col, String consumer) {
        return (msgs, ctx) -> {
            col.add(consumer, msgs);
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        };
    }

    /** Sends n scenario messages and returns them by msgId. */
    static Map<String, Message> send(DefaultMQProducer p, String topic, String tag, String prefix, int n)
        throws Exception {
        Map<String, Message> sent = new HashMap<>();
        for (int i = 0; i < n; i++) {
            Message m = Msgs.message(topic, tag, prefix, i);
            SendResult r = p.send(m);
            sent.put(r.getMsgId(), m);
        }
        return sent;
    }

    /**
     * Two consumers of one group split the four queues between them (each holds two, none twice);
     * every message reaches exactly one of them, the one holding its queue; afterwards the group's
     * committed offset of each queue is its max offset.
     */
    @Test
    void clusteringConsumersShareTheQueues() throws Exception {
        String topic = Rmq.name("T", "Clustering");
        String group = Rmq.name("CG", "Clustering");
        Map<String, Message> sent;
        Map<String, Set<Integer>> held = new HashMap<>();
        Collector col = new Collector();
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            List<DefaultMQPushConsumer> consumers = new ArrayList<>();
            for (String name : List.of("c1", "c2")) {
                DefaultMQPushConsumer c = cl.push(group);
                c.subscribe(topic, "*");
                c.registerMessageListener(recording(col, name));
                consumers.add(cl.started(c));
            }
            Wait.until("both consumers hold two queues each", () ->
                Clients.allocated(consumers.get(0), topic).size() == 2
                    && Clients.allocated(consumers.get(1), topic).size() == 2);
            held.put("c1", Clients.allocated(consumers.get(0), topic));
            held.put("c2", Clients.allocated(consumers.get(1), topic));
            assertThat(held.get("c1")).doesNotContainAnyElementsOf(held.get("c2"));

            sent = send(cl.producer(Rmq.name("PG", "Clustering")), topic, "TagCl", "clustering", 24);
            col.await(sent.size());
            Wait.sleep(Duration.ofSeconds(1)); // room for a wrong duplicate to show up
            List<Collector.Delivery> got = col.deliveries();
            assertThat(got).extracting(d -> d.msg().getMsgId()).doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(sent.keySet());
            for (Collector.Delivery d : got) {
                Msgs.assertSameContent(d.msg(), sent.get(d.msg().getMsgId()));
                assertThat(held.get(d.consumer())).as("queue of %s is held by %s", d.msg().getMsgId(), d.consumer())
                    .contains(d.msg().getQueueId());
            }
            assertThat(col.byConsumer()).containsOnlyKeys("c1", "c2");
        }
        Offsets.assertCommittedAtMax(group, topic);
    }

    /** Two broadcasting consumers of one group each receive every message, with the same content. */
    @Test
    void broadcastingConsumersEachGetEverything() throws Exception {
        String topic = Rmq.name("T", "Broadcast");
        String group = Rmq.name("CG", "Broadcast");
        Collector col = new Collector();
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            for (String name : List.of("b1", "b2")) {
                DefaultMQPushConsumer c = cl.push(group);
                Compat.broadcasting(c);
                c.subscribe(topic, "*");
                c.registerMessageListener(recording(col, name));
                cl.started(c);
            }
            Map<String, Message> sent = send(cl.producer(Rmq.name("PG", "Broadcast")), topic, "TagBc", "broadcast", 12);
            col.await(2 * sent.size());
            Map<String, List<Collector.Delivery>> by = col.byConsumer();
            assertThat(by).containsOnlyKeys("b1", "b2");
            for (List<Collector.Delivery> mine : by.values()) {
                assertThat(mine).extracting(d -> d.msg().getMsgId())
                    .containsExactlyInAnyOrderElementsOf(sent.keySet());
                mine.forEach(d -> Msgs.assertSameContent(d.msg(), sent.get(d.msg().getMsgId())));
            }
        }
    }

    /**
     * An orderly consumer sees each queue's messages in queue-offset order, one queue at a time,
     * so every order's steps arrive in the order they were sent.
     */
    @Test
    void orderlyConsumerKeepsQueueOrder() throws Exception {
        String topic = Rmq.name("T", "Orderly");
        String group = Rmq.name("CG", "Orderly");
        Collector col = new Collector();
        Map<Integer, Integer> busy = new HashMap<>();
        List<String> overlaps = new ArrayList<>();
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQPushConsumer c = cl.push(group);
            c.subscribe(topic, "*");
            c.registerMessageListener((MessageListenerOrderly) (msgs, ctx) -> {
                int q = ctx.getMessageQueue().getQueueId();
                synchronized (busy) {
                    if (busy.merge(q, 1, Integer::sum) > 1) {
                        overlaps.add("queue " + q + " consumed by two threads at once");
                    }
                }
                col.add("orderly", msgs);
                Wait.sleep(Duration.ofMillis(5));
                synchronized (busy) {
                    busy.merge(q, -1, Integer::sum);
                }
                return ConsumeOrderlyStatus.SUCCESS;
            });
            cl.started(c);
            DefaultMQProducer p = cl.producer(Rmq.name("PG", "Orderly"));
            int orders = 8;
            int steps = 10;
            for (int step = 0; step < steps; step++) {
                for (int order = 0; order < orders; order++) {
                    Message m = Msgs.message(topic, "TagOrd", "orderly" + order, step);
                    p.send(m, (mqs, msg, arg) -> mqs.get((Integer) arg % mqs.size()), order);
                }
            }
            col.await(orders * steps);
            List<MessageExt> got = col.messages();
            assertThat(overlaps).isEmpty();
            Map<Integer, List<Long>> offsetsByQueue = got.stream().collect(Collectors.groupingBy(
                MessageExt::getQueueId, Collectors.mapping(MessageExt::getQueueOffset, Collectors.toList())));
            for (Map.Entry<Integer, List<Long>> e : offsetsByQueue.entrySet()) {
                assertThat(e.getValue()).as("offsets of queue %d in consume order", e.getKey()).isSorted()
                    .doesNotHaveDuplicates();
            }
            for (int order = 0; order < orders; order++) {
                String key = "orderly" + order + "-all";
                List<Integer> seen = got.stream().filter(m -> m.getKeys().endsWith(" " + key))
                    .map(Msgs::seq).toList();
                assertThat(seen).as("steps of order %d", order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
            }
        }
    }

    /**
     * A subscription to "TagA || TagB" receives exactly the TagA and TagB messages, and a second
     * group subscribed to TagC exactly the others; each message keeps its tag.
     */
    @Test
    void tagSubscriptionReceivesOnlyItsTags() throws Exception {
        String topic = Rmq.name("T", "Tags");
        Collector ab = new Collector();
        Collector onlyC = new Collector();
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQPushConsumer c1 = cl.push(Rmq.name("CG", "TagsAB"));
            c1.subscribe(topic, "TagA || TagB");
            c1.registerMessageListener(recording(ab, "ab"));
            cl.started(c1);
            DefaultMQPushConsumer c2 = cl.push(Rmq.name("CG", "TagsC"));
            c2.subscribe(topic, "TagC");
            c2.registerMessageListener(recording(onlyC, "c"));
            cl.started(c2);

            DefaultMQProducer p = cl.producer(Rmq.name("PG", "Tags"));
            Map<String, Message> wantAB = new HashMap<>();
            Map<String, Message> wantC = new HashMap<>();
            String[] tags = {"TagC", "TagA", "TagC", "TagB"};
            for (int i = 0; i < 24; i++) {
                String tag = tags[i % tags.length];
                Message m = Msgs.message(topic, tag, "tags", i);
                String id = p.send(m).getMsgId();
                (tag.equals("TagC") ? wantC : wantAB).put(id, m);
            }
            ab.await(wantAB.size());
            onlyC.await(wantC.size());
            Wait.sleep(Duration.ofSeconds(1)); // room for a message of the wrong tag to show up
            assertThat(ab.messages()).extracting(MessageExt::getMsgId).containsExactlyInAnyOrderElementsOf(wantAB.keySet());
            assertThat(onlyC.messages()).extracting(MessageExt::getMsgId).containsExactlyInAnyOrderElementsOf(wantC.keySet());
            ab.messages().forEach(m -> Msgs.assertSameContent(m, wantAB.get(m.getMsgId())));
            onlyC.messages().forEach(m -> Msgs.assertSameContent(m, wantC.get(m.getMsgId())));
        }
    }
}
