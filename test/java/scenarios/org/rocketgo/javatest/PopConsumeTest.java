package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIf;

/**
 * RocketMQ 5's POP consumption and server-side assignment with the 5.x push consumer: built with
 * clientRebalance=false it asks the broker for its queues (QUERY_ASSIGNMENT), and pops them
 * (POP_MESSAGE, ACK_MESSAGE, CHANGE_MESSAGE_INVISIBLETIME) when the broker's request mode for its
 * group and topic is POP (SET_MESSAGE_REQUEST_MODE), or pulls them when it is PULL.
 *
 * <p>A message the client popped carries the POP_CK property it built from the broker's answer; a
 * pulled one does not: that is how the scenarios tell which way a message came.
 */
@DisabledIf(value = "org.rocketgo.javatest.Compat#noPop", disabledReason = "POP is RocketMQ 5's")
class PopConsumeTest {
    private static final String POP_CK = "POP_CK";

    /**
     * In POP mode every message is delivered with its content and a POP_CK; a message the listener
     * fails (RECONSUME_LATER: the client changes its invisible time to the first pop delay, 10 s)
     * comes back once, from the broker's retry topic, with reconsumeTimes 1, the same msgId and
     * content; nothing acknowledged comes back.
     */
    @Test
    void popConsumerGetsEveryMessageAndTheFailedOnesAgain() throws Exception {
        String topic = Rmq.name("T", "Pop");
        String group = Rmq.name("CG", "Pop");
        Collector col = new Collector();
        Set<String> failedOnce = ConcurrentHashMap.newKeySet();
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQProducer producer = cl.producer(Rmq.name("PG", "Pop"));
            Compat.setConsumeMode(producer, topic, group, true);
            DefaultMQPushConsumer c = cl.push(group);
            Compat.rebalanceOnBroker(c);
            c.setConsumeMessageBatchMaxSize(1);
            c.subscribe(topic, "*");
            c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                col.add("pop", msgs);
                MessageExt m = msgs.get(0);
                if (Msgs.seq(m) % 4 == 0 && failedOnce.add(m.getMsgId())) {
                    return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                }
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
            cl.started(c);
            Map<String, Message> sent = PushConsumerTest.send(producer, topic, "TagPop", "pop", 12);

            col.await(sent.size() + 3, Duration.ofSeconds(90));
            Thread.sleep(3000); // anything acknowledged that came back would arrive now
            List<MessageExt> got = col.messages();
            Map<String, List<Integer>> tries = got.stream().collect(Collectors.groupingBy(
                MessageExt::getMsgId, Collectors.mapping(MessageExt::getReconsumeTimes, Collectors.toList())));
            assertThat(tries).containsOnlyKeys(sent.keySet());
            tries.forEach((id, times) -> {
                int seq = Msgs.seq(sent.get(id));
                if (seq % 4 == 0) {
                    assertThat(times).as("failed #%d", seq).containsExactly(0, 1);
                } else {
                    assertThat(times).as("acknowledged #%d", seq).containsExactly(0);
                }
            });
            for (MessageExt m : got) {
                Msgs.assertSameContent(m, sent.get(m.getMsgId()));
                assertThat(m.getProperty(POP_CK)).as("popped, not pulled: %s", m).isNotBlank();
            }

            List<MessageExt> retried = cl.reader().all("%RETRY%" + group + "_" + topic, 3);
            assertThat(retried).extracting(MessageExt::getMsgId).containsExactlyInAnyOrderElementsOf(failedOnce);
            assertThat(retried).allSatisfy(m -> assertThat(m.getReconsumeTimes()).isEqualTo(1));
        }
    }

    /**
     * One group switches from PULL to POP and back while it consumes: after each switch the
     * broker tells the consumer to rebalance, and the messages sent after it arrive the new way;
     * every message sent is delivered.
     */
    @Test
    void oneGroupSwitchesBetweenPullAndPop() throws Exception {
        String topic = Rmq.name("T", "PopSwitch");
        String group = Rmq.name("CG", "PopSwitch");
        Collector col = new Collector();
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQProducer producer = cl.producer(Rmq.name("PG", "PopSwitch"));
            DefaultMQPushConsumer c = cl.push(group);
            Compat.rebalanceOnBroker(c);
            c.subscribe(topic, "*");
            c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                col.add("switch", msgs);
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
            cl.started(c);

            Map<String, Message> pulled = sendUntilDelivered(producer, topic, "pull-a", col, false);
            Compat.setConsumeMode(producer, topic, group, true);
            Map<String, Message> popped = sendUntilDelivered(producer, topic, "pop", col, true);
            Compat.setConsumeMode(producer, topic, group, false);
            Map<String, Message> pulledAgain = sendUntilDelivered(producer, topic, "pull-b", col, false);

            Set<String> delivered = col.messages().stream().map(MessageExt::getMsgId).collect(Collectors.toSet());
            assertThat(delivered).containsAll(pulled.keySet()).containsAll(popped.keySet()).containsAll(pulledAgain.keySet());
            for (MessageExt m : col.messages()) {
                Message orig = pulled.containsKey(m.getMsgId()) ? pulled.get(m.getMsgId())
                    : popped.containsKey(m.getMsgId()) ? popped.get(m.getMsgId()) : pulledAgain.get(m.getMsgId());
                Msgs.assertSameContent(m, orig);
            }
        }
    }

    /**
     * Sends batches of 4 messages until one batch arrives entirely the way asked for (popped: with
     * POP_CK; pulled: without), then returns every message sent.
     */
    private static Map<String, Message> sendUntilDelivered(DefaultMQProducer p, String topic, String prefix,
        Collector col, boolean pop) throws Exception {
        Map<String, Message> all = new ConcurrentHashMap<>();
        long deadline = System.currentTimeMillis() + Rmq.WAIT.toMillis();
        for (int round = 0; System.currentTimeMillis() < deadline; round++) {
            Map<String, Message> batch = PushConsumerTest.send(p, topic, "TagSwitch", prefix + round, 4);
            all.putAll(batch);
            Wait.until("batch " + prefix + round + " delivered", () -> deliveredIds(col).containsAll(batch.keySet()));
            boolean allTheWay = col.messages().stream().filter(m -> batch.containsKey(m.getMsgId()))
                .allMatch(m -> (m.getProperty(POP_CK) != null) == pop);
            if (allTheWay) {
                return all;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("the consumer never switched to " + (pop ? "POP" : "PULL"));
    }

    private static Set<String> deliveredIds(Collector col) {
        return col.messages().stream().map(MessageExt::getMsgId).collect(Collectors.toSet());
    }
}
