package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;

/**
 * A push consumer with an SQL92 subscription (the plain cluster has enablePropertyFilter=true).
 * Its start asks the broker to check the expression first (MQClientInstance.checkClientInBroker:
 * CHECK_CLIENT_CONFIG).
 */
class SqlFilterTest {
    @Test
    void sql92SubscriptionReceivesExactlyTheSelectedMessages() throws Exception {
        String topic = Rmq.name("T", "Sql");
        Collector col = new Collector();
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQPushConsumer c = cl.push(Rmq.name("CG", "Sql"));
            c.subscribe(topic, MessageSelector.bySql("(kind = 'odd' AND javatest_n >= 5) OR TAGS = 'TagPick'"));
            c.registerMessageListener(PushConsumerTest.recording(col, "sql"));
            cl.started(c);
            DefaultMQProducer p = cl.producer(Rmq.name("PG", "Sql"));
            Map<String, Message> want = new HashMap<>();
            for (int i = 0; i < 20; i++) {
                Message m = Msgs.message(topic, i == 2 ? "TagPick" : "TagSql", "sql", i);
                m.putUserProperty("kind", i % 2 == 1 ? "odd" : "even");
                m.putUserProperty("javatest_n", Integer.toString(i));
                String id = p.send(m).getMsgId();
                if ((i % 2 == 1 && i >= 5) || i == 2) {
                    want.put(id, m);
                }
            }
            col.await(want.size());
            Wait.sleep(Duration.ofSeconds(1)); // room for a message the expression rejects to show up
            assertThat(col.messages()).extracting(MessageExt::getMsgId).containsExactlyInAnyOrderElementsOf(want.keySet());
            col.messages().forEach(m -> Msgs.assertSameContent(m, want.get(m.getMsgId())));
        }
    }
}
