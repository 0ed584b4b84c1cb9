package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.junit.jupiter.api.Test;

/**
 * Delay levels (messageDelayLevel "1s 5s 10s ..."): a message sent with level n reaches its
 * consumer, on its own topic and queue with its content, no earlier than level n's delay after it
 * was born, and the broker re-stores it no earlier than that either.
 */
class DelayTest {
    private static final long[] LEVEL_MILLIS = {0, 1000, 5000};

    @Test
    void delayedMessagesArriveNoEarlierThanTheirLevel() throws Exception {
        String topic = Rmq.name("T", "Delay");
        Collector col = new Collector();
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQPushConsumer c = cl.push(Rmq.name("CG", "Delay"));
            c.subscribe(topic, "*");
            c.registerMessageListener(PushConsumerTest.recording(col, "delay"));
            cl.started(c);

            DefaultMQProducer p = cl.producer(Rmq.name("PG", "Delay"));
            Map<String, Message> sent = new HashMap<>();
            Map<String, SendResult> results = new HashMap<>();
            Map<String, Integer> levels = new HashMap<>();
            for (int i = 0; i < 6; i++) {
                int level = 1 + i % 2;
                Message m = Msgs.message(topic, "TagDelay" + level, "delay", i);
                m.setDelayTimeLevel(level);
                SendResult r = p.send(m);
                sent.put(r.getMsgId(), m);
                results.put(r.getMsgId(), r);
                levels.put(r.getMsgId(), level);
            }
            col.await(sent.size());
            assertThat(col.messages()).extracting(m -> m.getMsgId())
                .containsExactlyInAnyOrderElementsOf(sent.keySet());
            for (Collector.Delivery d : col.deliveries()) {
                String id = d.msg().getMsgId();
                long delay = LEVEL_MILLIS[levels.get(id)];
                Msgs.assertSameContent(d.msg(), sent.get(id));
                assertThat(d.msg().getQueueId()).isEqualTo(results.get(id).getMessageQueue().getQueueId());
                assertThat(d.receivedAt()).as("%s (level %d) received at least %d ms after birth", id, levels.get(id), delay)
                    .isGreaterThanOrEqualTo(d.msg().getBornTimestamp() + delay);
                assertThat(d.msg().getStoreTimestamp()).as("%s re-stored when due", id)
                    .isGreaterThanOrEqualTo(d.msg().getBornTimestamp() + delay);
            }
        }
    }
}
