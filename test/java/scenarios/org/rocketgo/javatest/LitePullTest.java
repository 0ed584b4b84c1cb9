package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

/**
 * DefaultLitePullConsumer in subscribe and assign mode. 4.9.8 pulls with PULL_MESSAGE; 5.x sets
 * the lite-pull flag and sends LITE_PULL_MESSAGE (361).
 */
class LitePullTest {
    /** subscribe + poll: every message once with its content; offsets committed on shutdown. */
    @Test
    void subscribeModePollsEveryMessage() throws Exception {
        String topic = Rmq.name("T", "LiteSub");
        String group = Rmq.name("CG", "LiteSub");
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            Map<String, Message> sent = PushConsumerTest.send(cl.producer(Rmq.name("PG", "LiteSub")),
                topic, "TagLite", "litesub", 16);
            DefaultLitePullConsumer c = cl.litePull(group);
            c.subscribe(topic, "*");
            cl.started(c);
            List<MessageExt> got = new ArrayList<>();
            Wait.until("the lite pull consumer polls " + sent.size() + " messages", () -> {
                got.addAll(c.poll(500));
                return got.size() >= sent.size();
            });
            assertThat(got).extracting(MessageExt::getMsgId).containsExactlyInAnyOrderElementsOf(sent.keySet());
            got.forEach(m -> Msgs.assertSameContent(m, sent.get(m.getMsgId())));
            c.commitSync();
        }
        Offsets.assertCommittedAtMax(group, topic);
    }

    /** assign + seek: polling one queue starts at the offset sought; commitSync(map, true) stores it. */
    @Test
    void assignModeReadsFromTheOffsetSought() throws Exception {
        String topic = Rmq.name("T", "LiteAssign");
        String group = Rmq.name("CG", "LiteAssign");
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQProducer p = cl.producer(Rmq.name("PG", "LiteAssign"));
            MessageQueue mq = cl.reader().queue(topic, 1);
            List<Message> sent = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                Message m = Msgs.message(topic, "TagAssign", "liteassign", i);
                SendResult r = p.send(m, mq);
                assertThat(r.getQueueOffset()).isEqualTo(i);
                sent.add(m);
            }
            DefaultLitePullConsumer c = cl.litePull(group);
            c.setAutoCommit(false);
            cl.started(c);
            assertThat(c.fetchMessageQueues(topic)).contains(mq).hasSize(4);
            c.assign(List.of(mq));
            c.seek(mq, 4);
            List<MessageExt> got = new ArrayList<>();
            Wait.until("the assigned queue yields offsets 4..9", () -> {
                got.addAll(c.poll(500));
                return got.size() >= 6;
            });
            assertThat(got).extracting(MessageExt::getQueueOffset).containsExactly(4L, 5L, 6L, 7L, 8L, 9L);
            for (MessageExt m : got) {
                assertThat(m.getQueueId()).isEqualTo(1);
                Msgs.assertSameContent(m, sent.get((int) m.getQueueOffset()));
            }
            Map<MessageQueue, Long> commit = new HashMap<>();
            commit.put(mq, 10L);
            c.commitSync(commit, true);
            Wait.until("the broker holds committed offset 10 for " + mq, () -> {
                try {
                    return c.committed(mq) == 10L;
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }
}
