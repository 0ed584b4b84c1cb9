package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.Map;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.junit.jupiter.api.Test;

/**
 * TLS: clients with setUseTLS(true) (the client's default trust: any server certificate) send and
 * consume through a broker with tls.server.mode=enforcing, talking TLS to the name server too; a
 * plain client's send to that broker fails.
 */
class TlsTest {
    @Test
    void tlsClientsSendAndConsume() throws Exception {
        String topic = Rmq.name("T", "Tls");
        Collector col = new Collector();
        try (Clients cl = new Clients(Rmq.tlsNamesrv(), null, true)) {
            cl.createTopic(topic, 4);
            Map<String, Message> sent = PushConsumerTest.send(cl.producer(Rmq.name("PG", "Tls")),
                topic, "TagTls", "tls", 8);
            DefaultMQPushConsumer c = cl.push(Rmq.name("CG", "Tls"));
            c.subscribe(topic, "*");
            c.registerMessageListener(PushConsumerTest.recording(col, "tls"));
            cl.started(c);
            col.await(sent.size());
            assertThat(col.messages()).extracting(m -> m.getMsgId()).containsExactlyInAnyOrderElementsOf(sent.keySet());
            col.messages().forEach(m -> Msgs.assertSameContent(m, sent.get(m.getMsgId())));
        }
    }

    @Test
    void plainClientIsRefusedByAnEnforcingBroker() throws Exception {
        String topic = Rmq.name("T", "TlsPlain");
        try (Clients tls = new Clients(Rmq.tlsNamesrv(), null, true);
             Clients plain = new Clients(Rmq.tlsNamesrv(), null, false)) {
            tls.createTopic(topic, 4);
            DefaultMQProducer p = plain.configure(new DefaultMQProducer(Rmq.name("PG", "TlsPlain")));
            p.setRetryTimesWhenSendFailed(0);
            p.setSendMsgTimeout(3000);
            plain.started(p);
            Throwable err = catchThrowable(() -> p.send(Msgs.message(topic, "TagTls", "plain", 0)));
            assertThat(err).as("a plain send to an enforcing broker fails").isNotNull();
        }
    }
}
