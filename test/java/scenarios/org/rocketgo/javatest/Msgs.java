package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageClientExt;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;

/** Building messages with content worth checking, and checking that content came back unchanged. */
final class Msgs {
    /** The user property every scenario message carries, with its index. */
    static final String SEQ = "javatest-seq";
    /** A user property with characters the properties encoding must keep. */
    static final String NOTE = "javatest-note";

    private Msgs() {
    }

    /** Message i of a scenario: tag, key "key-i" plus a second key, body "body-i", two user properties. */
    static Message message(String topic, String tag, String keyPrefix, int i) {
        Message m = new Message(topic, tag, keyPrefix + "-" + i + " " + keyPrefix + "-all",
            body(keyPrefix, i));
        m.putUserProperty(SEQ, Integer.toString(i));
        m.putUserProperty(NOTE, "héllo wörld " + Rmq.VERSION + " #" + i);
        return m;
    }

    /** The offsetMsgId (store host and commit log offset) of a message read from the broker. */
    static String offsetMsgId(MessageExt m) {
        return ((MessageClientExt) m).getOffsetMsgId();
    }

    /** The offsetMsgId of any message read from the broker: the one it has, or its msgId when decoded plainly. */
    static String offsetMsgIdOf(MessageExt m) {
        return m instanceof MessageClientExt ? offsetMsgId(m) : m.getMsgId();
    }

    static byte[] body(String prefix, int i) {
        return ("body of " + prefix + " #" + i + " from " + Rmq.VERSION).getBytes(StandardCharsets.UTF_8);
    }

    static String text(Message m) {
        return new String(m.getBody(), StandardCharsets.UTF_8);
    }

    static int seq(Message m) {
        return Integer.parseInt(m.getUserProperty(SEQ));
    }

    /** Asserts that got has sent's topic, tags, keys, body and user properties. */
    static void assertSameContent(MessageExt got, Message sent) {
        assertThat(got.getTopic()).as("topic").isEqualTo(sent.getTopic());
        assertThat(got.getTags()).as("tags").isEqualTo(sent.getTags());
        assertThat(got.getKeys()).as("keys").isEqualTo(sent.getKeys());
        assertThat(text(got)).as("body").isEqualTo(text(sent));
        assertThat(userProperties(got)).as("user properties").isEqualTo(userProperties(sent));
    }

    /**
     * The properties of m that are not RocketMQ's own: not in MessageConst.STRING_HASH_SET, nor
     * TRANSACTION_CHECK_TIMES, which the broker adds to a half message on each check-back (and
     * which the message committed after a check keeps, in Apache's broker too) without listing it there.
     */
    static Map<String, String> userProperties(Message m) {
        Map<String, String> user = new HashMap<>(m.getProperties());
        user.keySet().removeIf(MessageConst.STRING_HASH_SET::contains);
        user.remove(MessageConst.PROPERTY_TRANSACTION_CHECK_TIMES);
        return user;
    }
}
