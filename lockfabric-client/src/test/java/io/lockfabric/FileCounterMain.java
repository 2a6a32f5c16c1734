package io.lockfabric;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

/**
 * One process of {@link TwoProcessFileCounterTest}: opens {@code args[0]} ({@code tcp://host:port})
 * with the defaults, and on each of {@code args[3]} threads {@code args[2]} times takes
 * {@code lock("c")} of space {@code counter}, reads the number in the plain file {@code args[1]},
 * writes it plus one, and unlocks. Prints {@code DONE} and exits 0; exits 1 if anything failed or a
 * hold was lost (a lost lock would let the other process in).
 */
public final class FileCounterMain {
    private FileCounterMain() {
    }

    public static void main(String[] args) throws Exception {
        String address = args[0];
        Path file = Path.of(args[1]);
        int increments = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong losses = new AtomicLong();
        try (LockFabric lf = LockFabric.open(address)) {
            LockSpace counter = lf.lockSpace("counter");
            counter.onLoss(h -> losses.incrementAndGet());
            Lock c = counter.lock("c");
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(Thread.ofPlatform().name("incrementer-" + t).start(() -> {
                    try {
                        for (int i = 0; i < increments; i++) {
                            c.lock();
                            try {
                                long n = Long.parseLong(Files.readString(file, StandardCharsets.UTF_8).strip());
                                Files.writeString(file, Long.toString(n + 1), StandardCharsets.UTF_8);
                            } finally {
                                c.unlock();
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread w : workers) {
                w.join();
            }
            System.out.println(counter.stats());
        }
        if (failure.get() != null) {
            failure.get().printStackTrace(System.out);
            System.exit(1);
        }
        if (losses.get() > 0) {
            System.out.println(losses.get() + " holds lost to their lease");
            System.exit(1);
        }
        System.out.println("DONE");
    }
}
