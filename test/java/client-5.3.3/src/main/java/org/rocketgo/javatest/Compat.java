package org.rocketgo.javatest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Set;

import org.apache.rocketmq.client.MQAdmin;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageRequestMode;
import org.apache.rocketmq.remoting.protocol.heartbeat.MessageModel;
import org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;

/** The few calls whose names differ between rocketmq-client 4.9.8 and 5.3.3 (this is 5.3.3's). */
public final class Compat {
    /** The client version this module compiles against. */
    public static final String VERSION = "5.3.3";

    private Compat() {
    }

    /**
     * Whether DefaultMQProducer.request(msg, timeout) stops waiting once the request is sent
     * (RequestResponseFuture.acquireCountDownLatch in the send callback, apache/rocketmq#8272,
     * removed again by #9608 after 5.3.3), so that it throws RequestTimeoutException unless the
     * reply came before the send's answer, whatever the broker: 5.3.3 does.
     */
    public static boolean syncRequestStopsWaitingWhenSent() {
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

    /** Whether DefaultMQAdminExt has the list forms of topic and group creation: 5.x's has. */
    public static boolean hasListAdmin() {
        return true;
    }

    /** Creates topics with UPDATE_AND_CREATE_TOPIC_LIST. */
    public static void createTopicList(DefaultMQAdminExt admin, String addr, List<TopicConfig> configs) throws Exception {
        admin.createAndUpdateTopicConfigList(addr, configs);
    }

    /** Creates groups with UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST. */
    public static void createGroupList(DefaultMQAdminExt admin, String addr, List<String> groups, int retryMaxTimes)
        throws Exception {
        List<SubscriptionGroupConfig> configs = new ArrayList<>();
        for (String g : groups) {
            SubscriptionGroupConfig cfg = new SubscriptionGroupConfig();
            cfg.setGroupName(g);
            cfg.setRetryMaxTimes(retryMaxTimes);
            configs.add(cfg);
        }
        admin.createAndUpdateSubscriptionGroupConfigList(addr, configs);
    }

    /** Creates or updates a consumer group (SubscriptionGroupConfig moved to remoting.protocol in 5.x). */
    public static void createGroup(DefaultMQAdminExt admin, String addr, String group, int retryMaxTimes) throws Exception {
        SubscriptionGroupConfig cfg = new SubscriptionGroupConfig();
        cfg.setGroupName(group);
        cfg.setRetryMaxTimes(retryMaxTimes);
        admin.createAndUpdateSubscriptionGroupConfig(addr, cfg);
    }

    /**
     * A group's retryMaxTimes as the broker has it, null for a group it does not have: 5.x's
     * GET_SUBSCRIPTIONGROUP_CONFIG (352, MQClientAPIImpl.getSubscriptionGroupConfig, which the
     * dashboard's 5.x builds call; DefaultMQAdminExt's examineSubscriptionGroupConfig reads them all).
     */
    public static Integer groupRetryMaxTimes(DefaultMQAdminExt admin, String addr, String group) throws Exception {
        try {
            SubscriptionGroupConfig cfg = admin.getDefaultMQAdminExtImpl().getMqClientInstance().getMQClientAPIImpl()
                .getSubscriptionGroupConfig(addr, group, 15000);
            return cfg.getRetryMaxTimes();
        } catch (MQBrokerException e) {
            if (e.getResponseCode() == 26) { // SUBSCRIPTION_GROUP_NOT_EXIST
                return null;
            }
            throw e;
        }
    }

    /** CONSUME_MESSAGE_DIRECTLY through the admin API: 5.x names the message by topic and id. */
    public static String consumeDirectly(DefaultMQAdminExt admin, String group, String clientId, String topic,
        String offsetMsgId) throws Exception {
        return admin.consumeMessageDirectly(group, clientId, topic, offsetMsgId).getConsumeResult().name();
    }

    /**
     * Moves a group's offset of one queue with 5.x's resetOffsetByQueueId: UPDATE_CONSUMER_OFFSET,
     * then INVOKE_BROKER_TO_RESET_OFFSET naming the queue and the offset.
     */
    public static void resetQueueOffset(DefaultMQAdminExt admin, String addr, String brokerName, String group,
        String topic, int queueId, long offset) throws Exception {
        admin.resetOffsetByQueueId(addr, group, topic, queueId, offset);
    }

    /** Deletes a topic from the name servers (the argument order differs between 4.9.8 and 5.x). */
    public static void deleteTopicInNameServer(DefaultMQAdminExt admin, Set<String> namesrvs, String topic,
        String cluster) throws Exception {
        admin.deleteTopicInNameServer(namesrvs, cluster, topic);
    }

    /** Whether the client can consume by POP (RocketMQ 5). */
    public static boolean popSupported() {
        return true;
    }

    /** Whether it cannot: the condition POP scenarios are disabled by. */
    public static boolean noPop() {
        return !popSupported();
    }

    /** Lets the broker assign c's queues (QUERY_ASSIGNMENT) instead of rebalancing itself. */
    public static void rebalanceOnBroker(DefaultMQPushConsumer c) {
        c.setClientRebalance(false);
    }

    /**
     * Sets group's request mode of topic on every broker of the topic's route
     * (SET_MESSAGE_REQUEST_MODE, what mqadmin setConsumeMode sends): POP with every consumer
     * popping every queue (popShareQueueNum 0), or PULL.
     */
    public static void setConsumeMode(DefaultMQProducer admin, String topic, String group, boolean pop) throws Exception {
        MQClientAPIImpl api = admin.getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl();
        MessageRequestMode mode = pop ? MessageRequestMode.POP : MessageRequestMode.PULL;
        for (BrokerData bd : api.getTopicRouteInfoFromNameServer(topic, 5000).getBrokerDatas()) {
            api.setMessageRequestMode(bd.selectBrokerAddr(), topic, group, mode, 0, 5000);
        }
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
