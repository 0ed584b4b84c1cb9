package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;

/**
 * Apache's admin API, DefaultMQAdminExt from rocketmq-tools of the module's version, making the
 * calls rocketmq-dashboard and rocketmq-exporter make, against this version's admin cluster (one
 * broker, broker-a). Each result is checked against what the scenario did. Types whose package
 * moved between 4.9 and 5.x are only used through var.
 */
class AdminApiTest {
    private static final String BROKER = "broker-a";

    /** The admin cluster's broker address, from the name server's cluster info. */
    private static String brokerAddr(DefaultMQAdminExt admin) throws Exception {
        var info = admin.examineBrokerClusterInfo();
        return info.getBrokerAddrTable().get(BROKER).getBrokerAddrs().get(0L);
    }

    private static TopicConfig topicConfig(String topic, int queues) {
        TopicConfig tc = new TopicConfig(topic, queues, queues, 6);
        return tc;
    }

    /** Creates topic on the broker with the admin API and waits until the name server routes it. */
    private static void createTopic(DefaultMQAdminExt admin, String addr, String topic, int queues) throws Exception {
        admin.createAndUpdateTopicConfig(addr, topicConfig(topic, queues));
        Wait.until("the name server routes " + topic, () -> {
            try {
                return admin.examineTopicRouteInfo(topic).getQueueDatas().size() == 1;
            } catch (Exception e) {
                return false;
            }
        });
    }

    /** Cluster info, topic list, route, config, stats, broker runtime and stats data. */
    @Test
    void clusterTopicAndBrokerQueries() throws Exception {
        String topic = Rmq.name("T", "AdminTopic");
        try (Clients cl = Clients.admin()) {
            DefaultMQAdminExt admin = cl.adminExt();
            var info = admin.examineBrokerClusterInfo();
            assertThat(info.getClusterAddrTable().get(Rmq.adminCluster())).containsExactly(BROKER);
            String addr = brokerAddr(admin);
            assertThat(addr).matches("127\\.0\\.0\\.1:\\d+");

            createTopic(admin, addr, topic, 4);
            assertThat(admin.fetchAllTopicList().getTopicList()).contains(topic);
            var route = admin.examineTopicRouteInfo(topic);
            assertThat(route.getQueueDatas().get(0).getReadQueueNums()).isEqualTo(4);
            assertThat(route.getQueueDatas().get(0).getPerm()).isEqualTo(6);
            assertThat(route.getBrokerDatas().get(0).getBrokerAddrs().get(0L)).isEqualTo(addr);
            TopicConfig tc = admin.examineTopicConfig(addr, topic);
            assertThat(tc.getWriteQueueNums()).isEqualTo(4);
            assertThat(tc.getPerm()).isEqualTo(6);

            DefaultMQProducer p = cl.producer(Rmq.name("PG", "AdminTopic"));
            int n = 6;
            PushConsumerTest.send(p, topic, "TagAdmin", "admin", n);
            // The queues hold a send once the broker dispatched it, just after answering it.
            Wait.until("the topic's queues hold " + n + " messages", () -> totalMax(admin, topic) == n);
            var stats = admin.examineTopicStats(topic);
            assertThat(stats.getOffsetTable()).hasSize(4);
            for (var e : stats.getOffsetTable().entrySet()) {
                assertThat(e.getKey().getTopic()).isEqualTo(topic);
                assertThat(e.getKey().getBrokerName()).isEqualTo(BROKER);
                assertThat(e.getValue().getMinOffset()).isZero();
                if (e.getValue().getMaxOffset() > 0) {
                    assertThat(e.getValue().getLastUpdateTimestamp()).isPositive();
                }
            }

            var put = admin.viewBrokerStatsData(addr, "TOPIC_PUT_NUMS", topic);
            assertThat(put.getStatsDay().getSum()).isEqualTo(n);
            assertThat(put.getStatsMinute().getSum()).isEqualTo(n);
            assertThat(put.getStatsMinute().getAvgpt()).isEqualTo(1.0);
            assertThat(admin.viewBrokerStatsData(addr, "TOPIC_PUT_SIZE", topic).getStatsHour().getSum()).isGreaterThan(n * 40L);
            assertThat(admin.viewBrokerStatsData(addr, "BROKER_PUT_NUMS", Rmq.adminCluster()).getStatsDay().getSum())
                .isGreaterThanOrEqualTo(n);
            // 4.9.8 throws MQBrokerException, 5.3.3 MQClientException, both with the broker's remark.
            assertThatThrownBy(() -> admin.viewBrokerStatsData(addr, "TOPIC_PUT_NUMS", Rmq.name("T", "NeverSent")))
                .hasMessageContaining("The stats <TOPIC_PUT_NUMS> <" + Rmq.name("T", "NeverSent") + "> not exist");

            var runtime = admin.fetchBrokerRuntimeStats(addr).getTable();
            assertThat(runtime).containsKeys("brokerVersionDesc", "msgPutTotalTodayNow", "bootTimestamp", "commitLogDiskRatio");
            assertThat(Long.parseLong(runtime.get("bootTimestamp"))).isPositive();
        }
    }

    /**
     * A producer and a consumer online: consume stats and connections, producer connections and
     * the producer table, the consumer's running info, a message consumed directly, the broker's
     * consume stats of every group.
     */
    @Test
    void groupAndClientQueries() throws Exception {
        String topic = Rmq.name("T", "AdminGroup");
        String group = Rmq.name("CG", "AdminGroup");
        String producerGroup = Rmq.name("PG", "AdminGroup");
        Collector col = new Collector();
        try (Clients cl = Clients.admin()) {
            DefaultMQAdminExt admin = cl.adminExt();
            String addr = brokerAddr(admin);
            createTopic(admin, addr, topic, 4);
            DefaultMQProducer p = cl.producer(producerGroup);
            Map<String, Message> sent = PushConsumerTest.send(p, topic, "TagAdmin", "group", 8);
            DefaultMQPushConsumer c = cl.push(group);
            c.subscribe(topic, "*");
            c.registerMessageListener(PushConsumerTest.recording(col, "c"));
            cl.started(c);
            col.await(sent.size());

            Wait.until("the group's lag is 0", () -> {
                try {
                    return admin.examineConsumeStats(group).computeTotalDiff() == 0;
                } catch (Exception e) {
                    return false;
                }
            });
            var cs = admin.examineConsumeStats(group); // the topic's queues, and %RETRY% once committed on
            long consumed = 0;
            int queues = 0;
            for (var e : cs.getOffsetTable().entrySet()) {
                if (e.getKey().getTopic().equals(topic)) {
                    queues++;
                    assertThat(e.getValue().getConsumerOffset()).isEqualTo(e.getValue().getBrokerOffset());
                    consumed += e.getValue().getConsumerOffset();
                } else {
                    assertThat(e.getKey().getTopic()).isEqualTo("%RETRY%" + group);
                }
            }
            assertThat(queues).isEqualTo(4);
            assertThat(consumed).isEqualTo(sent.size());
            assertThat(admin.queryTopicConsumeByWho(topic).getGroupList()).contains(group);

            String consumerId = c.getDefaultMQPushConsumerImpl().getmQClientFactory().getClientId();
            var conn = admin.examineConsumerConnectionInfo(group);
            assertThat(conn.getConnectionSet()).extracting(x -> x.getClientId()).containsExactly(consumerId);
            assertThat(conn.getSubscriptionTable()).containsKey(topic);
            assertThat(conn.getConsumeType().name()).isEqualTo("CONSUME_PASSIVELY");

            String producerId = p.getDefaultMQProducerImpl().getmQClientFactory().getClientId();
            // A producer joins the broker's producer table by heartbeat: its first one can go out
            // before its first send has found the broker, and the next is 30 s later. Send one now.
            p.getDefaultMQProducerImpl().getmQClientFactory().sendHeartbeatToAllBrokerWithLock();
            var pc = admin.examineProducerConnectionInfo(producerGroup, topic);
            assertThat(pc.getConnectionSet()).extracting(x -> x.getClientId()).containsExactly(producerId);
            assertThat(pc.getConnectionSet()).extracting(x -> x.getLanguage().name()).containsOnly("JAVA");
            var producers = admin.getAllProducerInfo(addr).getData();
            assertThat(producers.get(producerGroup)).extracting(x -> x.getClientId()).containsExactly(producerId);

            var running = admin.getConsumerRunningInfo(group, consumerId, false);
            assertThat(running.getSubscriptionSet()).extracting(s -> s.getTopic()).contains(topic);
            assertThat(running.getProperties().getProperty("PROP_CONSUME_TYPE")).isEqualTo("CONSUME_PASSIVELY");

            MessageExt one = col.messages().get(0);
            assertThat(Compat.consumeDirectly(admin, group, consumerId, topic, Msgs.offsetMsgId(one))).isEqualTo("CR_SUCCESS");
            assertThat(col.await(sent.size() + 1)).hasSize(sent.size() + 1);
            // Consumed directly, the message reaches the listener decoded from the broker's record:
            // its msgId is the offset id, its UNIQ_KEY the producer's msgId.
            MessageExt again = col.messages().get(sent.size());
            assertThat(again.getProperty("UNIQ_KEY")).isEqualTo(one.getMsgId());
            assertThat(Msgs.offsetMsgIdOf(again)).isEqualTo(Msgs.offsetMsgId(one));
            Msgs.assertSameContent(again, sent.get(one.getMsgId()));

            var inBroker = admin.fetchConsumeStatsInBroker(addr, false, 15000);
            boolean listed = false;
            for (var m : inBroker.getConsumeStatsList()) {
                if (m.containsKey(group)) {
                    listed = true;
                    var mine = m.get(group).stream().filter(x -> x.getOffsetTable().keySet().stream()
                        .anyMatch(q -> q.getTopic().equals(topic))).findFirst().orElseThrow();
                    assertThat(mine.getOffsetTable()).hasSize(4);
                    assertThat(mine.computeTotalDiff()).isZero();
                }
            }
            assertThat(listed).as(group + " in the broker's consume stats").isTrue();
        }
    }

    /**
     * Offsets reset by time for the whole topic (with the consumer online: it consumes everything
     * again; and offline, the dashboard's resetOffsetByTimestampOld) and for one queue.
     */
    @Test
    void resetOffsetsByTime() throws Exception {
        String topic = Rmq.name("T", "AdminReset");
        String group = Rmq.name("CG", "AdminReset");
        Collector col = new Collector();
        try (Clients cl = Clients.admin()) {
            DefaultMQAdminExt admin = cl.adminExt();
            String addr = brokerAddr(admin);
            createTopic(admin, addr, topic, 2);
            long before = System.currentTimeMillis() - 60_000;
            DefaultMQProducer p = cl.producer(Rmq.name("PG", "AdminReset"));
            Map<String, Message> sent = new HashMap<>();
            for (int i = 0; i < 10; i++) {
                Message m = Msgs.message(topic, "TagReset", "reset", i);
                SendResult r = p.send(m, new MessageQueue(topic, BROKER, i % 2));
                sent.put(r.getMsgId(), m);
            }
            DefaultMQPushConsumer c = cl.push(group);
            c.subscribe(topic, "*");
            c.registerMessageListener(PushConsumerTest.recording(col, "c"));
            cl.started(c);
            col.await(10);
            Wait.until("the group's offsets are at the end", () -> lag(admin, group) == 0);

            Map<MessageQueue, Long> reset = admin.resetOffsetByTimestamp(topic, group, before, true);
            assertThat(reset).hasSize(2);
            assertThat(reset.values()).containsOnly(0L);
            List<Collector.Delivery> all = col.await(20);
            Map<String, Integer> times = new HashMap<>();
            for (Collector.Delivery d : all) {
                times.merge(d.msg().getMsgId(), 1, Integer::sum);
            }
            assertThat(times.keySet()).isEqualTo(sent.keySet());
            assertThat(times.values()).as("every message again, after the reset").containsOnly(2);
            Wait.until("the group's offsets are at the end again", () -> lag(admin, group) == 0);
            c.shutdown();

            // Nobody online: the dashboard's old form commits every queue's offset itself.
            var rolled = admin.resetOffsetByTimestampOld(group, topic, before, true);
            assertThat(rolled).hasSize(2);
            assertThat(committed(admin, group, topic, 0)).isZero();
            assertThat(committed(admin, group, topic, 1)).isZero();

            // One queue: only queue 1 moves.
            admin.updateConsumeOffset(addr, group, new MessageQueue(topic, BROKER, 0), 5);
            Compat.resetQueueOffset(admin, addr, BROKER, group, topic, 1, 3);
            Wait.until("queue 1's offset is 3", () -> committed(admin, group, topic, 1) == 3);
            assertThat(committed(admin, group, topic, 0)).isEqualTo(5);
        }
    }

    /** The sum of the max offsets of topic's queues, -1 while the broker does not answer. */
    private static long totalMax(DefaultMQAdminExt admin, String topic) {
        try {
            long total = 0;
            for (var o : admin.examineTopicStats(topic).getOffsetTable().values()) {
                total += o.getMaxOffset();
            }
            return total;
        } catch (Exception e) {
            return -1;
        }
    }

    private static long lag(DefaultMQAdminExt admin, String group) {
        try {
            return admin.examineConsumeStats(group).computeTotalDiff();
        } catch (Exception e) {
            return -1;
        }
    }

    /** The group's committed offset of a queue, from GET_CONSUME_STATS. */
    private static long committed(DefaultMQAdminExt admin, String group, String topic, int queueId) {
        try {
            for (var e : admin.examineConsumeStats(group).getOffsetTable().entrySet()) {
                if (e.getKey().getTopic().equals(topic) && e.getKey().getQueueId() == queueId) {
                    return e.getValue().getConsumerOffset();
                }
            }
        } catch (Exception e) {
            return -1;
        }
        return -1;
    }

    /**
     * UPDATE_BROKER_CONFIG with the keys that change at run time: brokerPermission=4 drains the
     * broker (the route turns read-only at once and sends fail) and 6 undoes it; paths and the
     * CVE-2023-33246 keys are refused.
     */
    @Test
    void updateBrokerConfigAtRunTime() throws Exception {
        String topic = Rmq.name("T", "AdminDrain");
        try (Clients cl = Clients.admin()) {
            DefaultMQAdminExt admin = cl.adminExt();
            String addr = brokerAddr(admin);
            createTopic(admin, addr, topic, 2);
            Properties cfg = admin.getBrokerConfig(addr);
            assertThat(cfg.getProperty("brokerClusterName")).isEqualTo(Rmq.adminCluster());
            assertThat(cfg.getProperty("brokerName")).isEqualTo(BROKER);
            assertThat(cfg.getProperty("brokerPermission")).isEqualTo("6");

            DefaultMQProducer p = cl.producer(Rmq.name("PG", "AdminDrain"));
            p.setRetryTimesWhenSendFailed(0);
            p.send(Msgs.message(topic, "TagDrain", "drain", 0));
            try {
                admin.updateBrokerConfig(addr, props("brokerPermission", "4"));
                assertThat(admin.getBrokerConfig(addr).getProperty("brokerPermission")).isEqualTo("4");
                Wait.until("the name server routes " + topic + " read-only", () -> routePerm(admin, topic) == 4);
                assertThatThrownBy(() -> p.send(Msgs.message(topic, "TagDrain", "drain", 1),
                    new MessageQueue(topic, BROKER, 0))).hasMessageContaining("forbidden");
            } finally {
                admin.updateBrokerConfig(addr, props("brokerPermission", "6"));
            }
            Wait.until("the name server routes " + topic + " writable again", () -> routePerm(admin, topic) == 6);
            p.send(Msgs.message(topic, "TagDrain", "drain", 2), new MessageQueue(topic, BROKER, 0));

            admin.updateBrokerConfig(addr, props("slaveReadEnable", "true"));
            assertThat(admin.getBrokerConfig(addr).getProperty("slaveReadEnable")).isEqualTo("true");
            admin.updateBrokerConfig(addr, props("slaveReadEnable", "false"));

            for (String[] kv : new String[][] {{"rocketmqHome", "/tmp/evil"}, {"filterServerNums", "1"},
                {"storePathRootDir", "/tmp/elsewhere"}, {"brokerConfigPath", "/tmp/broker.conf"}}) {
                assertThatThrownBy(() -> admin.updateBrokerConfig(addr, props(kv[0], kv[1])))
                    .as(kv[0]).isInstanceOf(MQBrokerException.class).hasMessageContaining("black list")
                    .satisfies(e -> assertThat(((MQBrokerException) e).getResponseCode()).isEqualTo(16));
            }
            assertThatThrownBy(() -> admin.updateBrokerConfig(addr, props("flushDiskType", "SYNC_FLUSH")))
                .isInstanceOf(MQBrokerException.class).hasMessageContaining("start-up only");
            assertThat(admin.getBrokerConfig(addr).getProperty("storePathRootDir"))
                .isEqualTo(cfg.getProperty("storePathRootDir"));
        }
    }

    private static Properties props(String k, String v) {
        Properties p = new Properties();
        p.setProperty(k, v);
        return p;
    }

    private static int routePerm(DefaultMQAdminExt admin, String topic) {
        try {
            return admin.examineTopicRouteInfo(topic).getQueueDatas().get(0).getPerm();
        } catch (Exception e) {
            return -1;
        }
    }

    /** Topics and groups created, read and deleted one by one. */
    @Test
    void createAndDeleteTopicsAndGroups() throws Exception {
        String topic = Rmq.name("T", "AdminCreate");
        String group = Rmq.name("CG", "AdminCreate");
        try (Clients cl = Clients.admin()) {
            DefaultMQAdminExt admin = cl.adminExt();
            String addr = brokerAddr(admin);
            createTopic(admin, addr, topic, 3);
            assertThat(admin.getAllTopicConfig(addr, 15000).getTopicConfigTable()).containsKey(topic);
            admin.deleteTopicInBroker(Set.of(addr), topic);
            Compat.deleteTopicInNameServer(admin, Set.of(Rmq.adminNamesrv()), topic, Rmq.adminCluster());
            assertThat(admin.getAllTopicConfig(addr, 15000).getTopicConfigTable()).doesNotContainKey(topic);
            Wait.until("the name server forgets " + topic, () -> {
                try {
                    return !admin.fetchAllTopicList().getTopicList().contains(topic);
                } catch (Exception e) {
                    return false;
                }
            });

            Compat.createGroup(admin, addr, group, 5);
            assertThat(Compat.groupRetryMaxTimes(admin, addr, group)).isEqualTo(5);
            Compat.createGroup(admin, addr, group, 7);
            assertThat(Compat.groupRetryMaxTimes(admin, addr, group)).as("an update").isEqualTo(7);
            assertThat(admin.getAllSubscriptionGroup(addr, 15000).getSubscriptionGroupTable()).containsKey(group);
            admin.deleteSubscriptionGroup(addr, group);
            assertThat(Compat.groupRetryMaxTimes(admin, addr, group)).isNull();
        }
    }

    /** The list forms of creation (UPDATE_AND_CREATE_TOPIC_LIST, _SUBSCRIPTIONGROUP_LIST), 5.x only. */
    @Test
    void createTopicsAndGroupsInLists() throws Exception {
        assumeTrue(Compat.hasListAdmin(), "rocketmq-tools " + Rmq.VERSION + " has no list forms of creation");
        List<String> topics = List.of(Rmq.name("T", "AdminList1"), Rmq.name("T", "AdminList2"));
        List<String> groups = List.of(Rmq.name("CG", "AdminList1"), Rmq.name("CG", "AdminList2"));
        try (Clients cl = Clients.admin()) {
            DefaultMQAdminExt admin = cl.adminExt();
            String addr = brokerAddr(admin);
            List<TopicConfig> configs = new ArrayList<>();
            for (String t : topics) {
                configs.add(topicConfig(t, 2));
            }
            Compat.createTopicList(admin, addr, configs);
            for (String t : topics) {
                assertThat(admin.examineTopicConfig(addr, t).getReadQueueNums()).isEqualTo(2);
                Wait.until("the name server routes " + t, () -> routePerm(admin, t) == 6);
            }
            Compat.createGroupList(admin, addr, groups, 4);
            for (String g : groups) {
                assertThat(Compat.groupRetryMaxTimes(admin, addr, g)).isEqualTo(4);
            }
        }
    }

    /**
     * The name server's WIPE_WRITE_PERM_OF_BROKER (205) and ADD_WRITE_PERM_OF_BROKER (327), the other
     * way to drain a broker: its topics turn read-only in the routes, then writable again.
     */
    @Test
    void wipeAndAddWritePermOfBroker() throws Exception {
        String topic = Rmq.name("T", "AdminWipe");
        try (Clients cl = Clients.admin()) {
            DefaultMQAdminExt admin = cl.adminExt();
            String addr = brokerAddr(admin);
            createTopic(admin, addr, topic, 2);
            assertThat(admin.wipeWritePermOfBroker(Rmq.adminNamesrv(), BROKER)).isPositive();
            Wait.until("the name server routes " + topic + " read-only", () -> routePerm(admin, topic) == 4);
            assertThat(admin.addWritePermOfBroker(Rmq.adminNamesrv(), BROKER)).isPositive();
            Wait.until("the name server routes " + topic + " writable", () -> routePerm(admin, topic) == 6);
        }
    }

    /** GET_NAMESRV_CONFIG (318) and UPDATE_NAMESRV_CONFIG (319), with Apache's black list. */
    @Test
    void nameServerConfig() throws Exception {
        try (Clients cl = Clients.admin()) {
            DefaultMQAdminExt admin = cl.adminExt();
            List<String> ns = List.of(Rmq.adminNamesrv());
            Map<String, Properties> cfg = admin.getNameServerConfig(ns);
            assertThat(cfg.get(Rmq.adminNamesrv()).getProperty("listenPort")).isEqualTo(Rmq.adminNamesrv().split(":")[1]);
            admin.updateNameServerConfig(props("orderMessageEnable", "true"), ns);
            assertThat(admin.getNameServerConfig(ns).get(Rmq.adminNamesrv()).getProperty("orderMessageEnable")).isEqualTo("true");
            assertThatThrownBy(() -> admin.updateNameServerConfig(props("kvConfigPath", "/tmp/evil"), ns))
                .hasMessageContaining("black list");
        }
    }
}
