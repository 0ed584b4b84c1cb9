package org.rocketgo.javatest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.rocketmq.common.message.MessageExt;

/** What consumers received, with who received it and when, for scenarios to wait on and inspect. */
final class Collector {
    /** One delivery: the message, the consumer that got it and the wall-clock time it arrived. */
    record Delivery(MessageExt msg, String consumer, long receivedAt) {
    }

    private final List<Delivery> deliveries = new ArrayList<>();

    synchronized void add(String consumer, List<MessageExt> msgs) {
        long now = System.currentTimeMillis();
        for (MessageExt m : msgs) {
            deliveries.add(new Delivery(m, consumer, now));
        }
    }

    synchronized List<Delivery> deliveries() {
        return new ArrayList<>(deliveries);
    }

    synchronized int size() {
        return deliveries.size();
    }

    /** Waits until at least n deliveries arrived and returns all of them. */
    List<Delivery> await(int n) {
        return await(n, Rmq.WAIT);
    }

    List<Delivery> await(int n, Duration limit) {
        Wait.until(n + " deliveries arrive (" + size() + " so far)", limit, () -> size() >= n);
        return deliveries();
    }

    /** The deliveries grouped by consumer. */
    synchronized Map<String, List<Delivery>> byConsumer() {
        return deliveries.stream().collect(Collectors.groupingBy(Delivery::consumer));
    }

    /** The messages delivered, in arrival order. */
    synchronized List<MessageExt> messages() {
        return deliveries.stream().map(Delivery::msg).collect(Collectors.toList());
    }
}
