package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;

import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.common.message.MessageQueue;

/** Checks of a group's committed offsets, as the broker holds them. */
final class Offsets {
    private Offsets() {
    }

    /**
     * After a group's consumers stopped (committing on shutdown), the broker's committed offset of
     * every queue of topic is that queue's max offset: read with a pull consumer of the same group
     * (started only now, so it never took part in the group's rebalancing).
     */
    static void assertCommittedAtMax(String group, String topic) throws Exception {
        try (Clients cl = Clients.plain()) {
            DefaultMQPullConsumer pc = cl.configure(new DefaultMQPullConsumer(group));
            pc.start();
            try {
                Set<MessageQueue> mqs = new HashSet<>(pc.fetchSubscribeMessageQueues(topic));
                assertThat(mqs).isNotEmpty();
                for (MessageQueue mq : mqs) {
                    long max = pc.maxOffset(mq);
                    Wait.until("the committed offset of " + mq + " reaches " + max, () -> {
                        try {
                            return pc.fetchConsumeOffset(mq, true) == max;
                        } catch (Exception e) {
                            return false;
                        }
                    });
                }
            } finally {
                pc.shutdown();
            }
        }
    }
}
