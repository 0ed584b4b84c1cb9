package org.rocketgo.javatest;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.rocketmq.client.ClientConfig;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * The official clients of one scenario, configured for one cluster, shut down (in reverse start
 * order) when the scenario closes this.
 *
 * <p>Every client gets its own instanceName, so no two share an MQClientInstance (which would share
 * one RPC hook and count as one member of a group), and polls the name server every second instead
 * of every 30 s, so routes of topics created during a scenario (retry topics among them) are seen
 * at once. Nothing else is changed from the clients' defaults.
 */
final class Clients implements AutoCloseable {
    private final String namesrv;
    private final RPCHook hook;
    private final boolean tls;
    private final Deque<Runnable> shutdowns = new ArrayDeque<>();

    Clients(String namesrv, RPCHook hook, boolean tls) {
        this.namesrv = namesrv;
        this.hook = hook;
        this.tls = tls;
    }

    /**
     * A send's whole budget (route lookup, retries). The clients' 3 s default is too tight for a
     * first send on a 2-core machine running the rest of the test suite beside the JVMs.
     */
    static final int SEND_TIMEOUT_MS = 15_000;

    /** Clients of this client version's admin cluster (Rmq.adminNamesrv). */
    static Clients admin() {
        return new Clients(Rmq.adminNamesrv(), null, false);
    }

    /** A started DefaultMQAdminExt, Apache's admin API, with a 15 s call timeout. */
    DefaultMQAdminExt adminExt() throws MQClientException {
        DefaultMQAdminExt a = configure(new DefaultMQAdminExt(hook, SEND_TIMEOUT_MS));
        a.start();
        shutdowns.push(a::shutdown);
        return a;
    }

    /** Clients of the plain cluster. */
    static Clients plain() {
        return new Clients(Rmq.namesrv(), null, false);
    }

    <T extends ClientConfig> T configure(T c) {
        c.setNamesrvAddr(namesrv);
        c.setInstanceName(Rmq.instanceName());
        c.setPollNameServerInterval(1000);
        c.setUseTLS(tls);
        return c;
    }

    /** A started producer of group. */
    DefaultMQProducer producer(String group) throws MQClientException {
        DefaultMQProducer p = configure(new DefaultMQProducer(group, hook));
        p.setSendMsgTimeout(SEND_TIMEOUT_MS);
        return started(p);
    }

    /** p (configured by the caller, e.g. with a listener) started and owned by this. */
    <P extends DefaultMQProducer> P started(P p) throws MQClientException {
        p.start();
        shutdowns.push(p::shutdown);
        return p;
    }

    /** A transactional producer of group, not started (set its listener, then call started). */
    TransactionMQProducer transactionProducer(String group) {
        TransactionMQProducer p = configure(new TransactionMQProducer(group, hook));
        p.setSendMsgTimeout(SEND_TIMEOUT_MS);
        return p;
    }

    /** A push consumer of group reading new groups from the first offset, not started. */
    DefaultMQPushConsumer push(String group) {
        DefaultMQPushConsumer c = configure(new DefaultMQPushConsumer(group, hook, new AllocateMessageQueueAveragely()));
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.setPersistConsumerOffsetInterval(1000);
        return c;
    }

    /** c started and owned by this. */
    DefaultMQPushConsumer started(DefaultMQPushConsumer c) throws MQClientException {
        c.start();
        shutdowns.push(c::shutdown);
        return c;
    }

    /** A lite pull consumer of group, not started. */
    DefaultLitePullConsumer litePull(String group) {
        DefaultLitePullConsumer c = configure(new DefaultLitePullConsumer(group, hook));
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        return c;
    }

    /** c started and owned by this. */
    DefaultLitePullConsumer started(DefaultLitePullConsumer c) throws MQClientException {
        c.start();
        shutdowns.push(c::shutdown);
        return c;
    }

    /** A started DefaultMQPullConsumer, the plain reader the scenarios check what is stored with. */
    Reader reader() throws MQClientException {
        DefaultMQPullConsumer c = configure(new DefaultMQPullConsumer(Rmq.name("READER", "all"), hook));
        c.start();
        shutdowns.push(c::shutdown);
        return new Reader(c);
    }

    /**
     * Creates topic with queues queues on every broker (UPDATE_AND_CREATE_TOPIC through the
     * client's admin API, tried again while it fails, as a JVM's first TLS handshake may outlast
     * the client's 3 s timeout) and waits until the name server routes all of them.
     */
    void createTopic(String topic, int queues) throws Exception {
        DefaultMQProducer admin = producer(Rmq.name("PG", "admin" + Math.abs(topic.hashCode())));
        Wait.succeeds("topic " + topic + " is created", () -> Compat.createTopic(admin, topic, queues));
        Wait.until("the name server routes " + topic, () -> {
            try {
                return admin.fetchPublishMessageQueues(topic).size() >= queues;
            } catch (MQClientException e) {
                return false;
            }
        });
    }

    /** The queue ids c currently holds (ProcessQueues not dropped by a rebalance). */
    static Set<Integer> allocated(DefaultMQPushConsumer c, String topic) {
        return c.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().entrySet().stream()
            .filter(e -> e.getKey().getTopic().equals(topic) && !e.getValue().isDropped())
            .map(e -> e.getKey().getQueueId())
            .collect(Collectors.toSet());
    }

    /** The queues of topic, from the name server. */
    static Set<MessageQueue> queues(DefaultMQProducer p, String topic) throws MQClientException {
        return Set.copyOf(p.fetchPublishMessageQueues(topic));
    }

    @Override
    public void close() {
        while (!shutdowns.isEmpty()) {
            shutdowns.pop().run();
        }
    }
}
