package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Clients of both versions in one group. The 4.9.8 and the 5.3.3 JVM run this at the same time
 * against the same cluster, topic and group, meeting through a Rendezvous directory:
 *
 * <ol>
 *   <li>at once: one push consumer of each version in the group; they split the four queues two
 *   and two, and every message the 4.9.8 producer sends reaches exactly the consumer holding its
 *   queue, with its content;</li>
 *   <li>in sequence: both stop (committing their offsets); a new 5.3.3 consumer of the group takes
 *   all four queues and receives exactly the messages sent afterwards, none of those consumed
 *   before: it resumed at the offsets both versions committed.</li>
 * </ol>
 *
 * Runs first in each JVM (@Order), so neither waits for the other's other scenarios.
 */
@Order(1)
class MixedVersionTest {
    private static final String SENDER = "4.9.8";
    private static final String TOPIC = "T_MixedVersions";
    private static final String GROUP = "CG_MixedVersions";
    /** How long to wait for the other JVM to reach a step (it may still be starting). */
    private static final Duration PEER = Duration.ofSeconds(150);

    private final boolean sender = Rmq.VERSION.equals(SENDER);
    private final String other = sender ? "5.3.3" : SENDER;

    @Test
    void bothVersionsShareOneGroup() throws Exception {
        Assumptions.assumeFalse(Rmq.rendezvous().isEmpty(),
            "needs both client JVMs at once: run through make test-java");
        Rendezvous rv = new Rendezvous(Rmq.rendezvous());
        together(rv);
        inSequence(rv);
    }

    /** Step 1: one consumer of each version, at once. */
    private void together(Rendezvous rv) throws Exception {
        Collector col = new Collector();
        try (Clients cl = Clients.plain()) {
            cl.createTopic(TOPIC, 4);
            DefaultMQPushConsumer c = cl.push(GROUP);
            c.subscribe(TOPIC, "*");
            c.registerMessageListener(PushConsumerTest.recording(col, Rmq.VERSION));
            cl.started(c);
            rv.put("up-" + Rmq.VERSION, "");
            rv.await("up-" + other, PEER);
            Wait.until("the group's two consumers hold two queues each",
                () -> Clients.allocated(c, TOPIC).size() == 2);
            Set<Integer> mine = Clients.allocated(c, TOPIC);
            rv.put("held-" + Rmq.VERSION, ids(mine));
            Set<Integer> theirs = parseIds(rv.await("held-" + other, PEER));
            assertThat(mine).as("queues held by %s and by %s", Rmq.VERSION, other)
                .doesNotContainAnyElementsOf(theirs);
            assertThat(union(mine, theirs)).containsExactlyInAnyOrder(0, 1, 2, 3);

            if (sender) {
                rv.put("sent1", sendAll(cl, "together", 24));
            }
            Map<String, Sent> want = parseSent(rv.await("sent1", PEER));
            want.values().removeIf(sent -> !mine.contains(sent.queue()));
            col.await(want.size());
            Wait.sleep(Duration.ofSeconds(1)); // room for a message of the other's queues to show up
            assertDelivered(col.messages(), want, "together");
            rv.put("done1-" + Rmq.VERSION, "");
            rv.await("done1-" + other, PEER);
        }
        rv.put("stopped-" + Rmq.VERSION, "");
    }

    /** Step 2: a 5.3.3 consumer alone resumes where both versions left off. */
    private void inSequence(Rendezvous rv) throws Exception {
        rv.await("stopped-" + other, PEER);
        try (Clients cl = Clients.plain()) {
            if (sender) {
                rv.await("resumed", PEER);
                rv.put("sent2", sendAll(cl, "insequence", 12));
                return;
            }
            Offsets.assertCommittedAtMax(GROUP, TOPIC);
            Collector col = new Collector();
            DefaultMQPushConsumer c = cl.push(GROUP);
            c.subscribe(TOPIC, "*");
            c.registerMessageListener(PushConsumerTest.recording(col, Rmq.VERSION));
            cl.started(c);
            Wait.until("the 5.3.3 consumer holds all four queues", () -> Clients.allocated(c, TOPIC).size() == 4);
            rv.put("resumed", "");
            Map<String, Sent> want = parseSent(rv.await("sent2", PEER));
            col.await(want.size());
            Wait.sleep(Duration.ofSeconds(1)); // room for an already consumed message to come again
            assertDelivered(col.messages(), want, "insequence");
        }
    }

    /** Sends n messages of phase and returns "msgId queueId seq" lines. */
    private static String sendAll(Clients cl, String phase, int n) throws Exception {
        DefaultMQProducer p = cl.producer("PG_MixedVersions_" + phase);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            SendResult r = p.send(message(phase, i));
            sb.append(r.getMsgId()).append(' ').append(r.getMessageQueue().getQueueId()).append(' ').append(i).append('\n');
        }
        return sb.toString();
    }

    /** Message i of phase: the same on both sides, so the receiver can rebuild what was sent. */
    private static Message message(String phase, int i) {
        Message m = new Message(TOPIC, "TagMixed", "mixed-" + phase + "-" + i,
            ("mixed " + phase + " #" + i + " from " + SENDER).getBytes(StandardCharsets.UTF_8));
        m.putUserProperty(Msgs.SEQ, Integer.toString(i));
        return m;
    }

    /** got is exactly want, each message once, on the queue it was sent to, with its content. */
    private static void assertDelivered(List<MessageExt> got, Map<String, Sent> want, String phase) {
        assertThat(got).extracting(MessageExt::getMsgId).doesNotHaveDuplicates()
            .containsExactlyInAnyOrderElementsOf(want.keySet());
        for (MessageExt m : got) {
            Sent sent = want.get(m.getMsgId());
            assertThat(m.getQueueId()).isEqualTo(sent.queue());
            Msgs.assertSameContent(m, message(phase, sent.seq()));
        }
    }

    /** Where a message went and which of its phase it is. */
    private record Sent(int queue, int seq) {
    }

    /** msgId → Sent from "msgId queueId seq" lines. */
    private static Map<String, Sent> parseSent(String text) {
        Map<String, Sent> m = new HashMap<>();
        for (String line : text.split("\n")) {
            String[] f = line.split(" ");
            m.put(f[0], new Sent(Integer.parseInt(f[1]), Integer.parseInt(f[2])));
        }
        return m;
    }

    private static String ids(Set<Integer> s) {
        return s.stream().sorted().map(String::valueOf).collect(Collectors.joining(","));
    }

    private static Set<Integer> parseIds(String text) {
        return Arrays.stream(text.split(",")).map(Integer::parseInt).collect(Collectors.toSet());
    }

    private static Set<Integer> union(Set<Integer> a, Set<Integer> b) {
        Set<Integer> u = new HashSet<>(a);
        u.addAll(b);
        return u;
    }
}
