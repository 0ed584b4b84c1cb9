package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.apache.rocketmq.client.QueryResult;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;

/** queryMessage by key (QUERY_MESSAGE on the index) and viewMessage by offsetMsgId and by msgId. */
class QueryTest {
    @Test
    void queryMessageFindsEveryMessageWithTheKey() throws Exception {
        String topic = Rmq.name("T", "Query");
        String key = "qk-" + UUID.randomUUID();
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQProducer p = cl.producer(Rmq.name("PG", "Query"));
            long begin = System.currentTimeMillis() - 1000;
            List<String> ids = new ArrayList<>();
            List<Message> sent = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Message m = Msgs.message(topic, "TagQuery", "query", i);
                m.setKeys(List.of(key, "query-" + i));
                ids.add(p.send(m).getMsgId());
                sent.add(m);
            }
            p.send(Msgs.message(topic, "TagQuery", "other", 9)); // a message without the key
            long end = System.currentTimeMillis() + 1000;
            List<MessageExt> found = new ArrayList<>();
            Wait.until("queryMessage finds the 3 messages with key " + key, () -> {
                found.clear();
                try {
                    QueryResult r = p.queryMessage(topic, key, 32, begin, end);
                    found.addAll(r.getMessageList());
                } catch (Exception e) {
                    return false;
                }
                return found.size() >= 3;
            });
            assertThat(found).extracting(MessageExt::getMsgId).containsExactlyInAnyOrderElementsOf(ids);
            for (MessageExt m : found) {
                Msgs.assertSameContent(m, sent.get(ids.indexOf(m.getMsgId())));
            }
            QueryResult byOtherKey = p.queryMessage(topic, "query-1", 32, begin, end);
            assertThat(byOtherKey.getMessageList()).extracting(MessageExt::getMsgId).containsExactly(ids.get(1));
        }
    }

    @Test
    void viewMessageByOffsetMsgIdAndByMsgId() throws Exception {
        String topic = Rmq.name("T", "View");
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQProducer p = cl.producer(Rmq.name("PG", "View"));
            Message m = Msgs.message(topic, "TagView", "view", 1);
            SendResult r = p.send(m);

            MessageExt byOffset = p.viewMessage(topic, r.getOffsetMsgId());
            Msgs.assertSameContent(byOffset, m);
            assertThat(byOffset.getMsgId()).isEqualTo(r.getMsgId());
            assertThat(byOffset.getQueueId()).isEqualTo(r.getMessageQueue().getQueueId());
            assertThat(byOffset.getQueueOffset()).isEqualTo(r.getQueueOffset());

            List<MessageExt> byId = new ArrayList<>();
            Wait.until("viewMessage finds " + r.getMsgId() + " by its msgId (the index)", () -> {
                try {
                    byId.add(p.viewMessage(topic, r.getMsgId()));
                    return true;
                } catch (Exception e) {
                    return false;
                }
            });
            Msgs.assertSameContent(byId.get(0), m);
            assertThat(byId.get(0).getQueueOffset()).isEqualTo(r.getQueueOffset());
            assertThat(Msgs.offsetMsgId(byId.get(0))).isEqualTo(r.getOffsetMsgId());
        }
    }
}
