package org.rocketgo.javatest;

import java.util.List;
import java.util.Set;

import org.apache.rocketmq.client.MQAdmin;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;
import org.apache.rocketmq.common.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

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

    /** Whether DefaultMQAdminExt has the list forms of topic and group creation: 4.9.8's has not. */
    public static boolean hasListAdmin() {
        return false;
    }

    /** Creates topics with UPDATE_AND_CREATE_TOPIC_LIST (5.x); 4.9.8 has no such call. */
    public static void createTopicList(DefaultMQAdminExt admin, String addr, List<TopicConfig> configs) {
        throw new UnsupportedOperationException("rocketmq-tools 4.9.8 has no createAndUpdateTopicConfigList");
    }

    /** Creates groups with UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST (5.x); 4.9.8 has no such call. */
    public static void createGroupList(DefaultMQAdminExt admin, String addr, List<String> groups, int retryMaxTimes) {
        throw new UnsupportedOperationException("rocketmq-tools 4.9.8 has no createAndUpdateSubscriptionGroupConfigList");
    }

    /** Creates or updates a consumer group (SubscriptionGroupConfig lives in common.subscription in 4.9). */
    public static void createGroup(DefaultMQAdminExt admin, String addr, String group, int retryMaxTimes) throws Exception {
        SubscriptionGroupConfig cfg = new SubscriptionGroupConfig();
        cfg.setGroupName(group);
        cfg.setRetryMaxTimes(retryMaxTimes);
        admin.createAndUpdateSubscriptionGroupConfig(addr, cfg);
    }

    /** A group's retryMaxTimes as the broker has it, null for a group it does not have. */
    public static Integer groupRetryMaxTimes(DefaultMQAdminExt admin, String addr, String group) throws Exception {
        SubscriptionGroupConfig cfg = admin.examineSubscriptionGroupConfig(addr, group);
        return cfg == null ? null : cfg.getRetryMaxTimes();
    }

    /** CONSUME_MESSAGE_DIRECTLY through the admin API: 4.9.8 names the message by its offset id. */
    public static String consumeDirectly(DefaultMQAdminExt admin, String group, String clientId, String topic,
        String offsetMsgId) throws Exception {
        return admin.consumeMessageDirectly(group, clientId, offsetMsgId).getConsumeResult().name();
    }

    /**
     * Moves a group's offset of one queue: 4.9.8's admin API has no per-queue reset, only
     * UPDATE_CONSUMER_OFFSET.
     */
    public static void resetQueueOffset(DefaultMQAdminExt admin, String addr, String brokerName, String group,
        String topic, int queueId, long offset) throws Exception {
        admin.updateConsumeOffset(addr, group, new MessageQueue(topic, brokerName, queueId), offset);
    }

    /** Deletes a topic from the name servers (the argument order differs between 4.9.8 and 5.x). */
    public static void deleteTopicInNameServer(DefaultMQAdminExt admin, Set<String> namesrvs, String topic,
        String cluster) throws Exception {
        admin.deleteTopicInNameServer(namesrvs, topic, cluster);
    }

    /** Whether the client can consume by POP: 4.9.8 cannot (RocketMQ 5 added it). */
    public static boolean popSupported() {
        return false;
    }

    /** Whether it cannot: the condition POP scenarios are disabled by. */
    public static boolean noPop() {
        return !popSupported();
    }

    /** 4.9.8 always rebalances in the client. */
    public static void rebalanceOnBroker(DefaultMQPushConsumer c) {
        throw new UnsupportedOperationException("rocketmq-client 4.9.8 has no server-side assignment");
    }

    /** 4.9.8 has no SET_MESSAGE_REQUEST_MODE. */
    public static void setConsumeMode(DefaultMQProducer admin, String topic, String group, boolean pop) {
        throw new UnsupportedOperationException("rocketmq-client 4.9.8 has no SET_MESSAGE_REQUEST_MODE");
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
