package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * Timer messages as the 5.x client sends them (Message.setDeliverTimeMs, setDelayTimeSec,
 * setDelayTimeMs): each reaches its consumer with its content no earlier than the time it asked
 * for; a send answers a recall handle, and DefaultMQProducer.recallMessage withdraws a pending
 * message; a delivery time beyond timerMaxDelaySec is refused with the broker's code and remark.
 */
@EnabledIf(value = "org.rocketgo.javatest.Compat#hasTimerApi", disabledReason = "the 4.9.8 client has no timer API")
class TimerTest {
    @Test
    void timerMessagesArriveNoEarlierThanAskedAndRecallWithdrawsOne() throws Exception {
        String topic = Rmq.name("T", "Timer");
        Collector col = new Collector();
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQPushConsumer c = cl.push(Rmq.name("CG", "Timer"));
            c.subscribe(topic, "*");
            c.registerMessageListener(PushConsumerTest.recording(col, "timer"));
            cl.started(c);

            DefaultMQProducer p = cl.producer(Rmq.name("PG", "Timer"));
            Map<String, Message> sent = new HashMap<>();
            Map<String, Long> due = new HashMap<>();
            for (int i = 0; i < 6; i++) {
                Message m = Msgs.message(topic, "TagTimer", "timer", i);
                long before = System.currentTimeMillis();
                long at;
                switch (i % 3) {
                    case 0 -> {
                        at = before + 2500;
                        Compat.deliverAt(m, at);
                    }
                    case 1 -> {
                        at = before + 2000;
                        Compat.delaySec(m, 2);
                    }
                    default -> {
                        at = before + 1500;
                        Compat.delayMs(m, 1500);
                    }
                }
                SendResult r = p.send(m);
                assertThat(r.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
                assertThat(Compat.recallHandle(r)).as("recall handle of %s", r.getMsgId()).isNotEmpty();
                sent.put(r.getMsgId(), m);
                due.put(r.getMsgId(), at);
            }

            Message gone = Msgs.message(topic, "TagTimer", "timer-recalled", 0);
            Compat.delaySec(gone, 4);
            SendResult goneResult = p.send(gone);
            assertThat(Compat.recall(p, topic, Compat.recallHandle(goneResult)))
                .as("recallMessage answers the recalled message's id").isEqualTo(goneResult.getMsgId());

            Message tooFar = Msgs.message(topic, "TagTimer", "timer-far", 0);
            Compat.deliverAt(tooFar, System.currentTimeMillis() + Duration.ofDays(10).toMillis());
            assertThatThrownBy(() -> p.send(tooFar)).isInstanceOf(MQBrokerException.class)
                .satisfies(e -> assertThat(((MQBrokerException) e).getResponseCode()).isEqualTo(13))
                .hasMessageContaining("timer message illegal, the delay time should not be bigger than the max delay");

            List<Collector.Delivery> got = col.await(sent.size());
            for (Collector.Delivery d : got) {
                MessageExt m = d.msg();
                assertThat(sent).as("delivered %s", m.getMsgId()).containsKey(m.getMsgId());
                Msgs.assertSameContent(m, sent.get(m.getMsgId()));
                long at = due.get(m.getMsgId());
                assertThat(d.receivedAt()).as("%s received no earlier than asked", m.getMsgId()).isGreaterThanOrEqualTo(at);
                assertThat(m.getStoreTimestamp()).as("%s stored no earlier than asked", m.getMsgId()).isGreaterThanOrEqualTo(at);
                assertThat(m.getProperty("TIMER_OUT_MS")).isNotNull();
                assertThat(m.getProperty("TIMER_DEQUEUE_MS")).isNotNull();
            }
            Thread.sleep(5000); // past the recalled message's time
            assertThat(col.messages()).extracting(MessageExt::getMsgId)
                .as("exactly the six, the recalled one never")
                .containsExactlyInAnyOrderElementsOf(sent.keySet());
        }
    }
}
