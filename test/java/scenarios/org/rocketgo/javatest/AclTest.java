package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.Map;

import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.RPCHook;
import org.junit.jupiter.api.Test;

/**
 * ACL through AclClientRPCHook against a broker with aclEnable=true (plain_acl.yml in
 * java_test.go: one account, PUB|SUB on topics, SUB on groups, JavaForbiddenTopic denied, no
 * address whitelisted): signed clients send and consume; wrong or missing credentials and the
 * denied topic are refused with the broker's AclException text.
 */
class AclTest {
    private static final String AK = "java-access-key";
    private static final String SK = "java-secret-key";

    static RPCHook hook(String ak, String sk) {
        return new AclClientRPCHook(new SessionCredentials(ak, sk));
    }

    @Test
    void signedClientsSendAndConsume() throws Exception {
        String topic = Rmq.name("T", "AclOk");
        Collector col = new Collector();
        try (Clients cl = new Clients(Rmq.aclNamesrv(), hook(AK, SK), false)) {
            // No admin right to create topics: the first signed send auto-creates it.
            DefaultMQProducer p = cl.producer(Rmq.name("PG", "AclOk"));
            Map<String, Message> sent = PushConsumerTest.send(p, topic, "TagAcl", "acl", 8);
            DefaultMQPushConsumer c = cl.push(Rmq.name("CG", "AclOk"));
            c.subscribe(topic, "*");
            c.registerMessageListener(PushConsumerTest.recording(col, "acl"));
            cl.started(c);
            col.await(sent.size());
            assertThat(col.messages()).extracting(m -> m.getMsgId()).containsExactlyInAnyOrderElementsOf(sent.keySet());
            col.messages().forEach(m -> Msgs.assertSameContent(m, sent.get(m.getMsgId())));
        }
    }

    @Test
    void wrongSecretIsRefused() throws Exception {
        assertRefused(hook(AK, "not-the-secret"), Rmq.name("T", "AclOk"),
            "Check signature failed for accessKey=" + AK);
    }

    @Test
    void unknownAccessKeyIsRefused() throws Exception {
        assertRefused(hook("someone-else", SK), Rmq.name("T", "AclOk"), "No acl config for someone-else");
    }

    @Test
    void unsignedRequestIsRefused() throws Exception {
        assertRefused(null, Rmq.name("T", "AclOk"), "No accessKey is configured");
    }

    @Test
    void deniedTopicIsRefused() throws Exception {
        assertRefused(hook(AK, SK), "JavaForbiddenTopic", "No default permission for topic:JavaForbiddenTopic");
    }

    /** A send with hook to topic fails, once, with a chain of exceptions that names want. */
    private static void assertRefused(RPCHook h, String topic, String want) throws Exception {
        try (Clients cl = new Clients(Rmq.aclNamesrv(), h, false)) {
            DefaultMQProducer p = cl.configure(new DefaultMQProducer(Rmq.name("PG", "AclRefused"), h));
            p.setRetryTimesWhenSendFailed(0);
            cl.started(p);
            Throwable err = catchThrowable(() -> p.send(Msgs.message(topic, "TagAcl", "refused", 0)));
            assertThat(err).as("the send is refused").isNotNull();
            assertThat(chain(err)).contains("AclException").contains(want);
        }
    }

    /** The messages of t and all its causes, one per line. */
    static String chain(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c.getClass().getName()).append(": ").append(c.getMessage()).append('\n');
        }
        return sb.toString();
    }
}
