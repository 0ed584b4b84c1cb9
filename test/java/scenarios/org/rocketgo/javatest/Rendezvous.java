package org.rocketgo.javatest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

/**
 * Where the 4.9.8 and the 5.3.3 JVM, run side by side by java_test.go, tell each other how far
 * they got: named notes in a shared directory, each written whole (temp file, then rename).
 */
final class Rendezvous {
    private final Path dir;

    Rendezvous(String dir) {
        this.dir = Path.of(dir);
    }

    /** Publishes note name with content text. */
    void put(String name, String text) {
        try {
            Path tmp = Files.createTempFile(dir, name, ".tmp");
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits up to limit for note name and returns its content. */
    String await(String name, Duration limit) {
        Path p = dir.resolve(name);
        Wait.until("the other client JVM publishes '" + name + "' in " + dir, limit, () -> Files.exists(p));
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
