package org.rocketgo.javatest;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where the servers are (system properties set by java_test.go) and how scenarios name their
 * topics and groups: every name carries the client version, so the two JVMs that share one cluster
 * never meet except where a scenario means them to.
 */
final class Rmq {
    /** The client version under test, e.g. "4.9.8". */
    static final String VERSION = Compat.VERSION;
    /** VERSION as a name part, e.g. "v498". */
    static final String TAG = "v" + VERSION.replace(".", "");
    /** How long a scenario waits for what should happen within seconds. */
    static final Duration WAIT = Duration.ofSeconds(60);

    private static final AtomicInteger SEQ = new AtomicInteger();

    private Rmq() {
    }

    /** The name server of the plain cluster (SQL filter on, fast transaction check-back). */
    static String namesrv() {
        return required("rmq.namesrv");
    }

    /** The name server of the cluster whose broker has aclEnable=true. */
    static String aclNamesrv() {
        return required("rmq.acl.namesrv");
    }

    /** The name server of the cluster whose broker has tls.server.mode=enforcing. */
    static String tlsNamesrv() {
        return required("rmq.tls.namesrv");
    }

    /**
     * The name server of this client version's admin cluster: AdminApiTest and MqadminCliTest change
     * its broker's permission and configuration, so each version has one of its own.
     */
    static String adminNamesrv() {
        return required("rmq.admin.namesrv." + TAG);
    }

    /** brokerClusterName of this client version's admin cluster. */
    static String adminCluster() {
        return required("rmq.admin.cluster." + TAG);
    }

    /** brokerClusterName of the plain cluster. */
    static String clusterName() {
        return required("rmq.cluster");
    }

    /** The directory the two client JVMs use to meet (MixedVersionTest); empty when run alone. */
    static String rendezvous() {
        return System.getProperty("rmq.rendezvous", "");
    }

    /** A topic or group name for one scenario: kind_scenario_vNNN. */
    static String name(String kind, String scenario) {
        return kind + "_" + scenario + "_" + TAG;
    }

    /** A client instance name no other client in either JVM has. */
    static String instanceName() {
        return "javatest-" + TAG + "-" + ProcessHandle.current().pid() + "-" + SEQ.incrementAndGet();
    }

    private static String required(String key) {
        String v = System.getProperty(key, "");
        if (v.isEmpty()) {
            throw new IllegalStateException("system property " + key + " is not set: run the suite with "
                + "`make test-java` (test/java/java_test.go starts the servers and passes their addresses)");
        }
        return v;
    }
}
