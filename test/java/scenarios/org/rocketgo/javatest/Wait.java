package org.rocketgo.javatest;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polling for a condition that should become true, with a message saying what never happened. */
final class Wait {
    private Wait() {
    }

    /** Waits up to Rmq.WAIT for cond. */
    static void until(String what, BooleanSupplier cond) {
        until(what, Rmq.WAIT, cond);
    }

    /** Waits up to limit for cond, failing with what when it stays false. */
    static void until(String what, Duration limit, BooleanSupplier cond) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + limit.toSeconds() + " s waiting until " + what);
            }
            sleep(Duration.ofMillis(100));
        }
    }

    /** An action that may fail for a while (a first TLS handshake can outlast a client's 3 s timeout). */
    interface Attempt {
        void run() throws Exception;
    }

    /** Runs attempt until it succeeds, for up to Rmq.WAIT, failing with its last exception. */
    static void succeeds(String what, Attempt attempt) {
        Exception[] last = new Exception[1];
        try {
            until(what, () -> {
                try {
                    attempt.run();
                    return true;
                } catch (Exception e) {
                    last[0] = e;
                    return false;
                }
            });
        } catch (AssertionError e) {
            if (last[0] != null) {
                e.initCause(last[0]);
            }
            throw e;
        }
    }

    static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
