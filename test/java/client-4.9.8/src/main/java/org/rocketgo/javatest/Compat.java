package org.rocketgo.javatest;

import org.apache.rocketmq.client.MQAdmin;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

/** The few calls whose names differ between rocketmq-client 4.9.8 and 5.3.3 (this is 4.9.8's). */
public final class Compat {
    /** The client version this module compiles against. */
    public static final String VERSION = "4.9.8";

    private Compat() {
    }

    /**
     * Whether DefaultMQProducer.request(msg, timeout) stops waiting once the request is sent
     * (RequestResponseFuture.acquireCountDownLatch in the send callback, apache/rocketmq#8272,
     * removed again by #9608 after 5.3.3), so that it throws RequestTimeoutException unless the
     * reply came before the send's answer, whatever the broker: 4.9.8 waits.
     */
    public static boolean syncRequestStopsWaitingWhenSent() {
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
}
