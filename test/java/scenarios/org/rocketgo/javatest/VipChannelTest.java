package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;

/**
 * vipChannelEnabled: the client sends (and queries) on the broker's VIP channel, listenPort − 2
 * (MixAll.brokerVIPChannel), where the broker serves what its client port serves.
 */
class VipChannelTest {
    @Test
    void vipChannelSendIsStored() throws Exception {
        String topic = Rmq.name("T", "Vip");
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQProducer p = cl.configure(new DefaultMQProducer(Rmq.name("PG", "Vip")));
            p.setVipChannelEnabled(true);
            p.setRetryTimesWhenSendFailed(0);
            cl.started(p);
            Message m = Msgs.message(topic, "TagVip", "vip", 1);
            SendResult r = p.send(m);
            assertThat(r.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
            MessageExt stored = p.viewMessage(topic, r.getOffsetMsgId());
            Msgs.assertSameContent(stored, m);
            assertThat(stored.getQueueOffset()).isEqualTo(r.getQueueOffset());
        }
    }
}
