package org.rocketgo.javatest;

import org.apache.rocketmq.client.MQAdmin;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

/** The few calls whose names differ between rocketmq-client 4.9.8 and 5.3.3 (this is 4.9.8's). */
public final class Compat {
    /** The client version this module compiles against. */
    public static final String VERSION = "4.9.8";

    private Compat() {
    }

    /** Whether DefaultLitePullConsumer pulls with LITE_PULL_MESSAGE (361); 4.9.8 uses PULL_MESSAGE (11). */
    public static boolean litePullUsesLitePullMessage() {
        return false;
    }

    /**
     * Whether the client drops a consume trace record whose message has no MSG_REGION property
     * (AsyncTraceDispatcher skips a null region): 4.9.8 keeps it with a null region.
     */
    public static boolean consumeTraceNeedsStoredRegion() {
        return false;
    }

    /** Makes c a broadcasting consumer (MessageModel moved to remoting.protocol in 5.x). */
    public static void broadcasting(DefaultMQPushConsumer c) {
        c.setMessageModel(MessageModel.BROADCASTING);
    }

    /** Creates topic with queues read and write queues on every broker TBW102 routes to. */
    public static void createTopic(MQAdmin admin, String topic, int queues) throws MQClientException {
        admin.createTopic("TBW102", topic, queues);
    }

    /** Whether the client can ask for a delivery time and recall: 4.9.8 cannot. */
    public static boolean hasTimerApi() {
        return false;
    }

    public static void deliverAt(Message m, long ms) {
        throw new UnsupportedOperationException("no timer API in " + VERSION);
    }

    public static void delaySec(Message m, long sec) {
        throw new UnsupportedOperationException("no timer API in " + VERSION);
    }

    public static void delayMs(Message m, long ms) {
        throw new UnsupportedOperationException("no timer API in " + VERSION);
    }

    public static String recallHandle(SendResult r) {
        throw new UnsupportedOperationException("no timer API in " + VERSION);
    }

    public static String recall(DefaultMQProducer p, String topic, String handle) {
        throw new UnsupportedOperationException("no timer API in " + VERSION);
    }
}
