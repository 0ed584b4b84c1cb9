package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.tools.command.MQAdminStartup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Apache's mqadmin command line, MQAdminStartup from rocketmq-tools of the module's version, run
 * in this JVM against this version's admin cluster: the everyday commands, each checked by the
 * lines of output operators read. Commands print to System.out, so the class runs with no other
 * scenario class beside it (@Isolated) while it captures it.
 */
@Isolated("captures System.out and System.err while mqadmin runs")
class MqadminCliTest {
    private static final String BROKER = "broker-a";

    /** Runs one mqadmin command with -n set to the admin cluster's name server; its output. */
    private static String mqadmin(String command, String... args) {
        String[] argv = new String[args.length + 3];
        argv[0] = command;
        System.arraycopy(args, 0, argv, 1, args.length);
        argv[args.length + 1] = "-n";
        argv[args.length + 2] = Rmq.adminNamesrv();
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream capture = new PrintStream(buf, true, StandardCharsets.UTF_8);
        System.setOut(capture);
        System.setErr(capture);
        try {
            MQAdminStartup.main0(argv, null);
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        String text = buf.toString(StandardCharsets.UTF_8);
        out.printf("$ mqadmin %s%n%s%n", String.join(" ", argv), text);
        return text;
    }

    /** The output's lines, trimmed, without empty ones. */
    private static List<String> lines(String out) {
        return Arrays.stream(out.split("\n")).map(String::trim).filter(l -> !l.isEmpty()).collect(Collectors.toList());
    }

    /** The output's lines split on runs of blanks. */
    private static List<List<String>> rows(String out) {
        return lines(out).stream().map(l -> Arrays.asList(l.split("\\s+"))).collect(Collectors.toList());
    }

    private static String brokerAddr() throws Exception {
        String out = mqadmin("clusterList");
        for (List<String> row : rows(out)) {
            if (row.size() > 3 && row.get(0).equals(Rmq.adminCluster()) && row.get(1).equals(BROKER)) {
                return row.get(3);
            }
        }
        throw new AssertionError("clusterList lists no " + BROKER + " of " + Rmq.adminCluster() + ":\n" + out);
    }

    /** clusterList, brokerStatus, getBrokerConfig and updateBrokerConfig of the broker. */
    @Test
    void clusterAndBroker() throws Exception {
        String out = mqadmin("clusterList");
        assertThat(lines(out).get(0)).startsWith("#Cluster Name").contains("#Broker Name", "#BID", "#Addr", "#Version");
        String addr = brokerAddr();
        assertThat(addr).matches("127\\.0\\.0\\.1:\\d+");
        assertThat(rows(out)).anySatisfy(r -> assertThat(r).startsWith(Rmq.adminCluster(), BROKER, "0", addr));

        out = mqadmin("brokerStatus", "-b", addr);
        assertThat(out).containsPattern("(?m)^brokerVersionDesc\\s+: V\\d");
        assertThat(out).containsPattern("(?m)^bootTimestamp\\s+: \\d+");
        assertThat(out).containsPattern("(?m)^msgPutTotalTodayNow\\s+: \\d+");

        out = mqadmin("getBrokerConfig", "-b", addr);
        assertThat(out).containsPattern("(?m)^brokerClusterName\\s+=\\s+" + Pattern.quote(Rmq.adminCluster()) + "$");
        assertThat(out).containsPattern("(?m)^brokerName\\s+=\\s+" + BROKER + "$");
        assertThat(out).containsPattern("(?m)^brokerPermission\\s+=\\s+6$");

        out = mqadmin("updateBrokerConfig", "-b", addr, "-k", "slaveReadEnable", "-v", "true");
        assertThat(out).contains("update broker config success, " + addr);
        assertThat(mqadmin("getBrokerConfig", "-b", addr)).containsPattern("(?m)^slaveReadEnable\\s+=\\s+true$");
        mqadmin("updateBrokerConfig", "-b", addr, "-k", "slaveReadEnable", "-v", "false");

        out = mqadmin("updateBrokerConfig", "-b", addr, "-k", "rocketmqHome", "-v", "/tmp/evil");
        assertThat(out).doesNotContain("update broker config success").contains("black list");
        assertThat(mqadmin("getBrokerConfig", "-b", addr)).doesNotContain("/tmp/evil");
    }

    /** updateTopic, topicList, topicRoute, topicStatus and deleteTopic. */
    @Test
    void topics() throws Exception {
        String topic = Rmq.name("T", "CliTopic");
        String addr = brokerAddr();
        String out = mqadmin("updateTopic", "-c", Rmq.adminCluster(), "-t", topic, "-r", "3", "-w", "3");
        assertThat(out).contains("create topic to " + addr + " success.");
        assertThat(out).contains("topicName=" + topic, "readQueueNums=3", "writeQueueNums=3", "perm=RW-");

        Wait.until("topicList lists " + topic, () -> lines(mqadmin("topicList")).contains(topic));
        out = mqadmin("topicRoute", "-t", topic);
        assertThat(out).contains("\"brokerName\":\"" + BROKER + "\"", "\"readQueueNums\":3", "\"writeQueueNums\":3", addr);

        try (Clients cl = Clients.admin()) {
            DefaultMQProducer p = cl.producer(Rmq.name("PG", "CliTopic"));
            PushConsumerTest.send(p, topic, "TagCli", "clitopic", 6);
        }
        Wait.until("topicStatus counts 6 messages", () -> maxOffsets(mqadmin("topicStatus", "-t", topic)) == 6);
        out = mqadmin("topicStatus", "-t", topic);
        assertThat(lines(out).get(0)).startsWith("#Broker Name").contains("#QID", "#Min Offset", "#Max Offset", "#Last Updated");
        assertThat(rows(out).stream().filter(r -> r.get(0).equals(BROKER)).count()).isEqualTo(3);

        out = mqadmin("deleteTopic", "-c", Rmq.adminCluster(), "-t", topic);
        assertThat(out).contains("delete topic [" + topic + "] from cluster [" + Rmq.adminCluster() + "] success.");
        assertThat(out).contains("delete topic [" + topic + "] from NameServer success.");
        Wait.until("topicList no longer lists " + topic, () -> !lines(mqadmin("topicList")).contains(topic));
    }

    /** The sum of the #Max Offset column of topicStatus's output. */
    private static long maxOffsets(String out) {
        long total = 0;
        for (List<String> r : rows(out)) {
            if (r.size() >= 4 && r.get(0).equals(BROKER)) {
                total += Long.parseLong(r.get(3));
            }
        }
        return total;
    }

    /** updateSubGroup and deleteSubGroup. */
    @Test
    void subscriptionGroups() throws Exception {
        String group = Rmq.name("CG", "CliGroup");
        String addr = brokerAddr();
        String out = mqadmin("updateSubGroup", "-c", Rmq.adminCluster(), "-g", group, "-r", "5");
        assertThat(out).contains("create subscription group to " + addr + " success.");
        assertThat(out).contains("groupName=" + group, "retryMaxTimes=5");
        try (Clients cl = Clients.admin()) {
            assertThat(Compat.groupRetryMaxTimes(cl.adminExt(), addr, group)).isEqualTo(5);
            out = mqadmin("deleteSubGroup", "-c", Rmq.adminCluster(), "-g", group);
            assertThat(out).contains("delete subscription group [" + group + "] from broker [" + addr + "]");
            assertThat(Compat.groupRetryMaxTimes(cl.adminExt(), addr, group)).isNull();
        }
    }

    /**
     * With a producer and a consumer online: consumerProgress, consumerConnection,
     * producerConnection, queryMsgById, queryMsgByKey and resetOffsetByTime.
     */
    @Test
    void groupsClientsAndMessages() throws Exception {
        String topic = Rmq.name("T", "CliGroup");
        String group = Rmq.name("CG", "CliConsume");
        String producerGroup = Rmq.name("PG", "CliConsume");
        Collector col = new Collector();
        try (Clients cl = Clients.admin()) {
            String addr = brokerAddr();
            mqadmin("updateTopic", "-c", Rmq.adminCluster(), "-t", topic, "-r", "2", "-w", "2");
            cl.createTopic(topic, 2);
            long before = System.currentTimeMillis() - 60_000;
            DefaultMQProducer p = cl.producer(producerGroup);
            Map<String, Message> sent = PushConsumerTest.send(p, topic, "TagCli", "cligroup", 4);
            DefaultMQPushConsumer c = cl.push(group);
            c.subscribe(topic, "*");
            c.registerMessageListener(PushConsumerTest.recording(col, "c"));
            cl.started(c);
            col.await(sent.size());
            String consumerId = c.getDefaultMQPushConsumerImpl().getmQClientFactory().getClientId();
            String producerId = p.getDefaultMQProducerImpl().getmQClientFactory().getClientId();
            // A producer joins the broker's producer table by heartbeat: its first one can go out
            // before its first send has found the broker, and the next is 30 s later. Send one now.
            p.getDefaultMQProducerImpl().getmQClientFactory().sendHeartbeatToAllBrokerWithLock();

            Wait.until("consumerProgress shows no lag", () -> mqadmin("consumerProgress", "-g", group)
                .matches("(?s).*Diff Total: 0\\b.*"));
            String out = mqadmin("consumerProgress", "-g", group);
            assertThat(lines(out).get(0)).startsWith("#Topic").contains("#Broker Name", "#QID", "#Broker Offset",
                "#Consumer Offset", "#Diff");
            assertThat(rows(out).stream().filter(r -> r.get(0).equals(topic) && r.get(1).equals(BROKER)).count()).isEqualTo(2);
            assertThat(out).contains("Consume TPS:");
            if (!Rmq.VERSION.startsWith("4.")) {
                // 5.x prints #Inflight, the pull offset less the committed one (negative when the
                // broker leaves pullOffset out): none after a full consume.
                assertThat(out).contains("Consume Inflight Total: 0");
            }

            out = mqadmin("consumerConnection", "-g", group);
            assertThat(out).contains(consumerId);
            assertThat(out).containsPattern("ConsumeType:\\s+CONSUME_PASSIVELY");
            assertThat(out).containsPattern("MessageModel:\\s+CLUSTERING");
            assertThat(out).contains(topic);

            out = mqadmin("producerConnection", "-g", producerGroup, "-t", topic);
            assertThat(out).contains(producerId).contains("JAVA");

            var one = col.messages().get(0);
            String offsetMsgId = Msgs.offsetMsgId(one);
            // 5.x's queryMsgById requires the topic (-t), which 4.9's does not know.
            out = Rmq.VERSION.startsWith("4.")
                ? mqadmin("queryMsgById", "-i", offsetMsgId)
                : mqadmin("queryMsgById", "-t", topic, "-i", offsetMsgId);
            assertThat(out).containsPattern("Topic:\\s+" + Pattern.quote(topic));
            assertThat(out).containsPattern("Tags:\\s+\\[TagCli\\]");
            assertThat(out).containsPattern("Keys:\\s+\\[" + Pattern.quote(one.getKeys()) + "\\]");
            assertThat(out).containsPattern("Queue ID:\\s+" + one.getQueueId());
            assertThat(out).containsPattern("Queue Offset:\\s+" + one.getQueueOffset());

            out = mqadmin("queryMsgByKey", "-t", topic, "-k", "cligroup-all");
            assertThat(lines(out).get(0)).startsWith("#Message ID").contains("#QID", "#Offset");
            assertThat(rows(out).stream().skip(1).map(r -> r.get(0)).collect(Collectors.toSet()))
                .isEqualTo(sent.keySet());

            out = mqadmin("resetOffsetByTime", "-g", group, "-t", topic, "-s", Long.toString(before));
            assertThat(out).contains("group[" + group + "], topic[" + topic + "], force[true]");
            assertThat(out).containsPattern("(?m)^#brokerName\\s+#queueId\\s+#offset\\s*$");
            // One row per queue: broker, queue id, the offset it was reset to (the first message).
            Map<String, String> resetTo = rows(out).stream().filter(r -> r.size() == 3 && r.get(0).equals(BROKER))
                .collect(Collectors.toMap(r -> r.get(1), r -> r.get(2)));
            assertThat(resetTo).isEqualTo(Map.of("0", "0", "1", "0"));
            // The consumer online consumes every message again, the same ones.
            List<Collector.Delivery> all = col.await(sent.size() * 2);
            assertThat(all).hasSize(sent.size() * 2);
            Map<String, Long> times = all.stream()
                .collect(Collectors.groupingBy(d -> d.msg().getMsgId(), Collectors.counting()));
            assertThat(times.keySet()).isEqualTo(sent.keySet());
            assertThat(times.values()).as("every message twice").containsOnly(2L);
        }
    }
}
