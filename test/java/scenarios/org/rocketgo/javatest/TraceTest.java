package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.trace.TraceBean;
import org.apache.rocketmq.client.trace.TraceContext;
import org.apache.rocketmq.client.trace.TraceDataEncoder;
import org.apache.rocketmq.client.trace.TraceType;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;

/**
 * Message trace (enableMsgTrace): traced clients write their records to RMQ_SYS_TRACE_TOPIC
 * (which the broker creates: traceTopicEnable=true on the plain cluster), keyed by msgId, where
 * queryMessage finds them and TraceDataEncoder reads them back.
 */
class TraceTest {
    private static final String TRACE_TOPIC = "RMQ_SYS_TRACE_TOPIC";

    /** A traced producer's Pub record names the message's topic, tags, keys and body length. */
    @Test
    void producerTraceIsWrittenToTheTraceTopic() throws Exception {
        String topic = Rmq.name("T", "TracePub");
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQProducer p = cl.started(cl.configure(
                new DefaultMQProducer(Rmq.name("PG", "TracePub"), null, true, null)));
            long begin = System.currentTimeMillis() - 1000;
            Map<String, Message> sent = PushConsumerTest.send(p, topic, "TagTrace", "tracepub", 3);
            for (Map.Entry<String, Message> e : sent.entrySet()) {
                List<TraceContext> traces = awaitTraces(p, e.getKey(), begin, TraceType.Pub);
                TraceContext ctx = context(traces, TraceType.Pub, e.getKey());
                assertThat(ctx.getGroupName()).isEqualTo(Rmq.name("PG", "TracePub"));
                assertThat(ctx.isSuccess()).isTrue();
                TraceBean pub = bean(ctx, e.getKey());
                assertThat(pub.getTopic()).isEqualTo(topic);
                assertThat(pub.getTags()).isEqualTo("TagTrace");
                assertThat(pub.getKeys()).isEqualTo(e.getValue().getKeys());
                assertThat(pub.getBodyLength()).isEqualTo(e.getValue().getBody().length);
            }
        }
    }

    /**
     * A traced consumer's SubBefore and SubAfter records name its group and the message. The 5.x
     * client drops a consume record whose message has no MSG_REGION property, which the broker
     * stamps on every message it stores (with TRACE_ON), as Apache's does.
     */
    @Test
    void consumerTraceIsWrittenToTheTraceTopic() throws Exception {
        String topic = Rmq.name("T", "TraceSub");
        String group = Rmq.name("CG", "TraceSub");
        Collector col = new Collector();
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQPushConsumer c = cl.configure(
                new DefaultMQPushConsumer(group, null, new AllocateMessageQueueAveragely(), true, null));
            c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
            c.subscribe(topic, "*");
            c.registerMessageListener(PushConsumerTest.recording(col, "trace"));
            cl.started(c);
            DefaultMQProducer p = cl.producer(Rmq.name("PG", "TraceSub"));
            long begin = System.currentTimeMillis() - 1000;
            Map<String, Message> sent = PushConsumerTest.send(p, topic, "TagTrace", "tracesub", 3);
            col.await(sent.size());
            for (Map.Entry<String, Message> e : sent.entrySet()) {
                List<TraceContext> traces = awaitTraces(p, e.getKey(), begin, TraceType.SubBefore, TraceType.SubAfter);
                TraceContext before = context(traces, TraceType.SubBefore, e.getKey());
                assertThat(before.getGroupName()).isEqualTo(group);
                assertThat(bean(before, e.getKey()).getKeys()).isEqualTo(e.getValue().getKeys());
                TraceContext after = context(traces, TraceType.SubAfter, e.getKey());
                assertThat(after.isSuccess()).isTrue();
                assertThat(after.getGroupName()).isEqualTo(group);
            }
        }
    }

    /** Waits until the trace topic holds records of every type in types for msgId; returns them all. */
    private static List<TraceContext> awaitTraces(DefaultMQProducer p, String msgId, long begin, TraceType... types) {
        List<TraceContext> traces = new ArrayList<>();
        Wait.until("the trace topic holds " + List.of(types) + " records of " + msgId, () -> {
            traces.clear();
            try {
                for (MessageExt t : p.queryMessage(TRACE_TOPIC, msgId, 64, begin, System.currentTimeMillis() + 1000)
                    .getMessageList()) {
                    traces.addAll(TraceDataEncoder.decoderFromTraceDataString(new String(t.getBody(), StandardCharsets.UTF_8)));
                }
            } catch (Exception ex) {
                return false;
            }
            for (TraceType type : types) {
                if (traces.stream().noneMatch(t -> t.getTraceType() == type && names(t, msgId))) {
                    return false;
                }
            }
            return true;
        });
        return traces;
    }

    private static boolean names(TraceContext t, String msgId) {
        return t.getTraceBeans().stream().anyMatch(b -> msgId.equals(b.getMsgId()));
    }

    private static TraceContext context(List<TraceContext> traces, TraceType type, String msgId) {
        return traces.stream().filter(t -> t.getTraceType() == type && names(t, msgId)).findFirst().orElseThrow();
    }

    private static TraceBean bean(TraceContext ctx, String msgId) {
        return ctx.getTraceBeans().stream().filter(b -> msgId.equals(b.getMsgId())).findFirst().orElseThrow();
    }
}
