package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.RequestTimeoutException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.RequestCallback;
import org.apache.rocketmq.client.utils.MessageUtil;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIf;

/**
 * Request-reply: DefaultMQProducer.request waits for the reply a consumer sends with
 * MessageUtil.createReplyMessage. The broker stamps each stored message with its CLUSTER
 * property, takes the reply (SEND_REPLY_MESSAGE_V2, 325) on the cluster's reply topic and pushes
 * it to the requesting client (PUSH_REPLY_MESSAGE_TO_CLIENT, 326).
 */
class RequestReplyTest {
    /** The synchronous request returns the consumer's reply. */
    @Test
    @DisabledIf(value = "org.rocketgo.javatest.Compat#syncRequestStopsWaitingWhenSent",
        disabledReason = "rocketmq-client 5.3.3's request(msg, timeout) stops waiting once the request is sent "
            + "(apache/rocketmq#8272, undone by #9608 after 5.3.3): RequestTimeoutException against any broker")
    void requestGetsTheConsumersReply() throws Exception {
        try (Responder r = new Responder("Request")) {
            Message req = Msgs.message(r.topic, "TagRequest", "request", 1);
            Message reply;
            try {
                reply = r.requester.request(req, 15000);
            } catch (RequestTimeoutException e) {
                r.errors.forEach(e::addSuppressed); // why the responder could not reply
                throw e;
            }
            assertReplies(reply, req);
        }
    }

    /**
     * The request with a callback gets the consumer's reply. Both clients also call onSuccess with
     * null as soon as the request is sent (RequestResponseFuture.executeRequestCallback from the
     * send callback), whatever the broker; that call is not the reply.
     */
    @Test
    void requestWithCallbackGetsTheConsumersReply() throws Exception {
        try (Responder r = new Responder("RequestAsync")) {
            for (int i = 1; i <= 2; i++) {
                Message req = Msgs.message(r.topic, "TagRequest", "request", i);
                CompletableFuture<Message> async = new CompletableFuture<>();
                r.requester.request(req, new RequestCallback() {
                    @Override
                    public void onSuccess(Message m) {
                        if (m != null) {
                            async.complete(m);
                        }
                    }

                    @Override
                    public void onException(Throwable e) {
                        async.completeExceptionally(e);
                    }
                }, 15000);
                Message reply;
                try {
                    reply = async.get(20, TimeUnit.SECONDS);
                } catch (Exception e) {
                    r.errors.forEach(e::addSuppressed);
                    throw e;
                }
                assertReplies(reply, req);
            }
        }
    }

    private static void assertReplies(Message reply, Message req) {
        assertThat(Msgs.text(reply)).isEqualTo("reply to " + Msgs.text(req));
        assertThat(reply.getProperty(MessageConst.PROPERTY_CORRELATION_ID))
            .isEqualTo(req.getProperty(MessageConst.PROPERTY_CORRELATION_ID));
        assertThat(reply.getTopic()).isEqualTo(Rmq.clusterName() + "_REPLY_TOPIC");
    }

    /** A topic, a consumer that answers every message on it, and a requester. */
    private static final class Responder implements AutoCloseable {
        final String topic;
        final List<Exception> errors = new CopyOnWriteArrayList<>();
        final DefaultMQProducer requester;
        private final Clients cl = Clients.plain();

        Responder(String scenario) throws Exception {
            topic = Rmq.name("T", scenario);
            cl.createTopic(topic, 4);
            DefaultMQProducer responder = cl.producer(Rmq.name("PG", scenario + "Responder"));
            DefaultMQPushConsumer c = cl.push(Rmq.name("CG", scenario));
            c.subscribe(topic, "*");
            c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                for (MessageExt m : msgs) {
                    try {
                        byte[] body = ("reply to " + Msgs.text(m)).getBytes(StandardCharsets.UTF_8);
                        responder.send(MessageUtil.createReplyMessage(m, body));
                    } catch (Exception e) {
                        errors.add(e);
                        return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                    }
                }
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
            cl.started(c);
            requester = cl.producer(Rmq.name("PG", scenario));
        }

        @Override
        public void close() {
            cl.close();
        }
    }
}
