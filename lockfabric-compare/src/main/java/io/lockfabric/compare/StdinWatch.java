package io.lockfabric.compare;

/** What the comparison's child mains share: they end when their parent's pipe to them closes. */
final class StdinWatch {
    private StdinWatch() {
    }

    /** Exits this JVM (status 0) once standard input reaches its end: the comparison that started it is gone. */
    static void exitAtEndOfInput() {
        Thread.ofPlatform().daemon().name("stdin-watch").start(() -> {
            try {
                while (System.in.read() >= 0) {
                    // nothing to read but the end
                }
            } catch (java.io.IOException ignored) {
                // the pipe broke: the parent is gone as well
            }
            System.exit(0);
        });
    }
}
