package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;

/**
 * A consumer that always answers RECONSUME_LATER: each message comes back through the group's
 * retry topic with reconsumeTimes 0, 1, 2 (maxReconsumeTimes=2, delay level 1 between tries, asked
 * for by the listener), then lands in %DLQ%group with its content, its original topic and msgId.
 *
 * <p>The first retry of a new group can take up to 20 s with 4.9.8: the broker creates the retry
 * topic on the consumer's first heartbeat, after the client looked up its route, and the client
 * picks the retry queue up at its next periodic rebalance (5.x rebalances when the route appears).
 */
class RetryDlqTest {
    @Test
    void failedMessagesAreRetriedThenDeadLettered() throws Exception {
        String topic = Rmq.name("T", "Retry");
        String group = Rmq.name("CG", "Retry");
        Collector col = new Collector();
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQPushConsumer c = cl.push(group);
            c.setMaxReconsumeTimes(2);
            c.setConsumeMessageBatchMaxSize(1);
            c.subscribe(topic, "*");
            c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                col.add("retry", msgs);
                ctx.setDelayLevelWhenNextConsume(1);
                return ConsumeConcurrentlyStatus.RECONSUME_LATER;
            });
            cl.started(c);
            Map<String, Message> sent = PushConsumerTest.send(cl.producer(Rmq.name("PG", "Retry")),
                topic, "TagRetry", "retry", 4);

            col.await(3 * sent.size());
            Map<String, List<Integer>> tries = col.messages().stream().collect(Collectors.groupingBy(
                MessageExt::getMsgId, Collectors.mapping(MessageExt::getReconsumeTimes, Collectors.toList())));
            assertThat(tries).containsOnlyKeys(sent.keySet());
            tries.forEach((id, times) -> assertThat(times).as("reconsumeTimes of %s", id).containsExactly(0, 1, 2));
            for (MessageExt m : col.messages()) {
                Msgs.assertSameContent(m, sent.get(m.getMsgId()));
            }

            String dlq = "%DLQ%" + group;
            List<MessageExt> dead = cl.reader().all(dlq, sent.size());
            Map<String, MessageExt> deadById = new HashMap<>();
            for (MessageExt m : dead) {
                deadById.put(m.getMsgId(), m);
            }
            assertThat(deadById).containsOnlyKeys(sent.keySet());
            for (Map.Entry<String, MessageExt> e : deadById.entrySet()) {
                MessageExt m = e.getValue();
                Message orig = sent.get(e.getKey());
                assertThat(m.getTopic()).isEqualTo(dlq);
                assertThat(m.getReconsumeTimes()).isEqualTo(3);
                assertThat(m.getProperty(MessageConst.PROPERTY_RETRY_TOPIC)).isEqualTo(topic);
                assertThat(m.getTags()).isEqualTo(orig.getTags());
                assertThat(m.getKeys()).isEqualTo(orig.getKeys());
                assertThat(Msgs.text(m)).isEqualTo(Msgs.text(orig));
                assertThat(Msgs.userProperties(m)).isEqualTo(Msgs.userProperties(orig));
            }
        }
    }
}
