package org.rocketgo.javatest;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.rocketmq.common.MQVersion;
import org.junit.jupiter.api.Test;

/**
 * The module runs the client version it is named for (the one the Maven dependency resolved).
 * java_test.go also runs this class alone first, offline Maven needing the JUnit provider that
 * only a run with a test downloads.
 */
class ClasspathTest {
    @Test
    void clientOnTheClasspathIsTheModulesVersion() {
        assertThat(MQVersion.getVersionDesc(MQVersion.CURRENT_VERSION))
            .isEqualTo("V" + Rmq.VERSION.replace('.', '_'));
    }
}
