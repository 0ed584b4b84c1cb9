package org.rocketgo.javatest;

import java.util.HashMap;

import org.apache.rocketmq.client.MQAdmin;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.protocol.heartbeat.MessageModel;

/** The few calls whose names differ between rocketmq-client 4.9.8 and 5.3.3 (this is 5.3.3's). */
public final class Compat {
    /** The client version this module compiles against. */
    public static final String VERSION = "5.3.3";

    private Compat() {
    }

    /** Whether DefaultLitePullConsumer pulls with LITE_PULL_MESSAGE (361); 5.x does. */
    public static boolean litePullUsesLitePullMessage() {
        return true;
    }

    /**
     * Whether the client drops a consume trace record whose message has no MSG_REGION property
     * (AsyncTraceDispatcher skips a null region): 5.x drops it.
     */
    public static boolean consumeTraceNeedsStoredRegion() {
        return true;
    }

    /** Makes c a broadcasting consumer (MessageModel moved to remoting.protocol in 5.x). */
    public static void broadcasting(DefaultMQPushConsumer c) {
        c.setMessageModel(MessageModel.BROADCASTING);
    }

    /** Creates topic with queues read and write queues on every broker TBW102 routes to. */
    public static void createTopic(MQAdmin admin, String topic, int queues) throws MQClientException {
        admin.createTopic("TBW102", topic, queues, new HashMap<>());
    }

    /** Whether the client can ask for a delivery time and recall (Message.setDeliverTimeMs, 5.3.1+). */
    public static boolean hasTimerApi() {
        return true;
    }

    /** Message.setDeliverTimeMs: deliver at ms (TIMER_DELIVER_MS). */
    public static void deliverAt(Message m, long ms) {
        m.setDeliverTimeMs(ms);
    }

    /** Message.setDelayTimeSec (TIMER_DELAY_SEC). */
    public static void delaySec(Message m, long sec) {
        m.setDelayTimeSec(sec);
    }

    /** Message.setDelayTimeMs (TIMER_DELAY_MS). */
    public static void delayMs(Message m, long ms) {
        m.setDelayTimeMs(ms);
    }

    /** SendResult.getRecallHandle. */
    public static String recallHandle(SendResult r) {
        return r.getRecallHandle();
    }

    /** DefaultMQProducer.recallMessage (RECALL_MESSAGE): the recalled message's id. */
    public static String recall(DefaultMQProducer p, String topic, String handle) throws Exception {
        return p.recallMessage(topic, handle);
    }
}
