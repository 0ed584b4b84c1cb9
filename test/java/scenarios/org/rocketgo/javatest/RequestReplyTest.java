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
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Request-reply: DefaultMQProducer.request waits for the reply a consumer sends with
 * MessageUtil.createReplyMessage. That needs the broker to stamp each stored message with its
 * CLUSTER property, to take the reply (SEND_REPLY_MESSAGE_V2, 325) on the cluster's reply topic
 * and to push it to the requesting client (PUSH_REPLY_MESSAGE_TO_CLIENT, 326).
 */
class RequestReplyTest {
    @Test
    @Disabled("needs the CLUSTER property on stored messages and SEND_REPLY_MESSAGE_V2 (325) — issue 8")
    void requestGetsTheConsumersReply() throws Exception {
        String topic = Rmq.name("T", "Request");
        List<Exception> replyErrors = new CopyOnWriteArrayList<>();
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            DefaultMQProducer responder = cl.producer(Rmq.name("PG", "Responder"));
            DefaultMQPushConsumer c = cl.push(Rmq.name("CG", "Request"));
            c.subscribe(topic, "*");
            c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                for (MessageExt m : msgs) {
                    try {
                        byte[] body = ("reply to " + Msgs.text(m)).getBytes(StandardCharsets.UTF_8);
                        responder.send(MessageUtil.createReplyMessage(m, body));
                    } catch (Exception e) {
                        replyErrors.add(e);
                        return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                    }
                }
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
            cl.started(c);
            DefaultMQProducer requester = cl.producer(Rmq.name("PG", "Request"));

            Message req = Msgs.message(topic, "TagRequest", "request", 1);
            Message reply;
            try {
                reply = requester.request(req, 15000);
            } catch (RequestTimeoutException e) {
                replyErrors.forEach(e::addSuppressed); // why the responder could not reply
                throw e;
            }
            assertThat(Msgs.text(reply)).isEqualTo("reply to " + Msgs.text(req));
            assertThat(reply.getProperty(MessageConst.PROPERTY_CORRELATION_ID))
                .isEqualTo(req.getProperty(MessageConst.PROPERTY_CORRELATION_ID));
            assertThat(reply.getTopic()).isEqualTo(Rmq.clusterName() + "_REPLY_TOPIC");

            Message req2 = Msgs.message(topic, "TagRequest", "request", 2);
            CompletableFuture<Message> async = new CompletableFuture<>();
            requester.request(req2, new RequestCallback() {
                @Override
                public void onSuccess(Message m) {
                    async.complete(m);
                }

                @Override
                public void onException(Throwable e) {
                    async.completeExceptionally(e);
                }
            }, 15000);
            assertThat(Msgs.text(async.get(20, TimeUnit.SECONDS))).isEqualTo("reply to " + Msgs.text(req2));
        }
    }
}
