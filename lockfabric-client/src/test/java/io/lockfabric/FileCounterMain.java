package io.lockfabric;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

/**
 * One process of {@link TwoProcessFileCounterTest}: opens {@code args[0]} ({@code tcp://host:port})
 * with the defaults, and on each of {@code args[3]} threads {@code args[2]} times takes
 * {@code lock("c")} of space {@code counter}, reads the number in the plain file {@code args[1]},
 * writes it plus one, and unlocks. With {@code args[4] = N:MS}, every N-th increment of each thread
 * stays MS milliseconds in its critical section (a holder descheduled there), long enough for the
 * other process's waiters to time out and reset the lock, and for its node-mates to look at it.
 * With {@code args[5] = LEASE} (such as {@code 5s}), the space's lease is that, not the API's default.
 * Prints its space's stats and {@code DONE} and exits 0; exits 1 if anything failed or a hold
 * outlived its lease (others may have taken it, and the count is then not to be trusted).
 */
public final class FileCounterMain {
    private FileCounterMain() {
    }

    public static void main(String[] args) throws Exception {
        String address = args[0];
        Path file = Path.of(args[1]);
        int increments = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        String[] stall = args.length > 4 ? args[4].split(":") : new String[] {"0", "0"};
        String lease = args.length > 5 ? args[5] : null;
        int stallEvery = Integer.parseInt(stall[0]);
        long stallMs = Long.parseLong(stall[1]);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long losses;
        try (LockFabric lf = LockFabric.open(address)) {
            LockSpace counter = lease == null ? lf.lockSpace("counter")
                    : lf.lockSpace("counter", SpaceOptions.builder().option("lease-ns", lease).build());
            Lock c = counter.lock("c");
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(Thread.ofPlatform().name("incrementer-" + t).start(() -> {
                    try {
                        for (int i = 0; i < increments; i++) {
                            c.lock();
                            try {
                                long n = Long.parseLong(Files.readString(file, StandardCharsets.UTF_8).strip());
                                if (stallEvery > 0 && i % stallEvery == stallEvery - 1) {
                                    Thread.sleep(stallMs);
                                }
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
            // from the stats, not a loss listener: a listener runs later, on the lease timer
            losses = counter.stats().losses();
            System.out.println(counter.stats());
        }
        if (failure.get() != null) {
            failure.get().printStackTrace(System.out);
            System.exit(1);
        }
        if (losses > 0) {
            System.out.println(losses + " holds outlived their lease: others may have taken the lock, the count may be off");
            System.exit(1);
        }
        System.out.println("DONE");
    }
}
