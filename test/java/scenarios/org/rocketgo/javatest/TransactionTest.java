package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageClientIDSetter;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;

/**
 * TransactionMQProducer: half messages committed or rolled back by the local transaction, and
 * those left UNKNOW settled by the broker's check-back (CHECK_TRANSACTION_STATE, answered with
 * END_TRANSACTION). The cluster checks every second (transactionCheckInterval=1000,
 * transactionTimeOut=1000).
 */
class TransactionTest {
    /** The outcome each message's local transaction reports, by its key prefix. */
    private static final String[] KINDS = {"commit", "rollback", "check-commit", "check-rollback"};

    @Test
    void commitRollbackAndCheckBack() throws Exception {
        String topic = Rmq.name("T", "Tx");
        Map<String, String> kindById = new ConcurrentHashMap<>();
        Map<String, MessageExt> checked = new ConcurrentHashMap<>();
        Collector col = new Collector();
        try (Clients cl = Clients.plain()) {
            cl.createTopic(topic, 4);
            TransactionMQProducer p = cl.transactionProducer(Rmq.name("PG", "Tx"));
            p.setTransactionListener(new TransactionListener() {
                @Override
                public LocalTransactionState executeLocalTransaction(Message msg, Object arg) {
                    return switch ((String) arg) {
                        case "commit" -> LocalTransactionState.COMMIT_MESSAGE;
                        case "rollback" -> LocalTransactionState.ROLLBACK_MESSAGE;
                        default -> LocalTransactionState.UNKNOW;
                    };
                }

                @Override
                public LocalTransactionState checkLocalTransaction(MessageExt msg) {
                    // A check's MessageExt is decoded as the broker's: getMsgId() is its offsetMsgId.
                    String id = MessageClientIDSetter.getUniqID(msg);
                    String kind = kindById.get(id);
                    if (kind == null) {
                        return LocalTransactionState.UNKNOW; // checked before the send returned
                    }
                    checked.put(id, msg);
                    return kind.equals("check-commit") ? LocalTransactionState.COMMIT_MESSAGE
                        : LocalTransactionState.ROLLBACK_MESSAGE;
                }
            });
            cl.started(p);

            Map<String, Message> sent = new HashMap<>();
            for (int i = 0; i < 12; i++) {
                String kind = KINDS[i % KINDS.length];
                Message m = Msgs.message(topic, "TagTx", kind, i);
                TransactionSendResult r = p.sendMessageInTransaction(m, kind);
                assertThat(r.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
                assertThat(r.getLocalTransactionState()).isEqualTo(switch (kind) {
                    case "commit" -> LocalTransactionState.COMMIT_MESSAGE;
                    case "rollback" -> LocalTransactionState.ROLLBACK_MESSAGE;
                    default -> LocalTransactionState.UNKNOW;
                });
                kindById.put(r.getMsgId(), kind);
                sent.put(r.getMsgId(), m);
            }

            DefaultMQPushConsumer c = cl.push(Rmq.name("CG", "Tx"));
            c.subscribe(topic, "*");
            c.registerMessageListener(PushConsumerTest.recording(col, "tx"));
            cl.started(c);

            List<String> wantDelivered = kindById.entrySet().stream()
                .filter(e -> e.getValue().equals("commit") || e.getValue().equals("check-commit"))
                .map(Map.Entry::getKey).toList();
            List<String> wantChecked = kindById.entrySet().stream()
                .filter(e -> e.getValue().startsWith("check-")).map(Map.Entry::getKey).toList();
            Wait.until("the broker checks back every UNKNOW transaction (" + checked.size() + " so far)",
                () -> checked.keySet().containsAll(wantChecked));
            col.await(wantDelivered.size());
            Wait.sleep(Duration.ofSeconds(3)); // room for a rolled-back message to show up wrongly
            assertThat(col.messages()).extracting(MessageExt::getMsgId)
                .containsExactlyInAnyOrderElementsOf(wantDelivered);
            col.messages().forEach(m -> Msgs.assertSameContent(m, sent.get(m.getMsgId())));
            for (Map.Entry<String, MessageExt> e : checked.entrySet()) {
                assertThat(e.getValue().getTransactionId()).as("transaction id of a check").isEqualTo(e.getKey());
                Msgs.assertSameContent(e.getValue(), sent.get(e.getKey()));
            }
        }
    }
}
