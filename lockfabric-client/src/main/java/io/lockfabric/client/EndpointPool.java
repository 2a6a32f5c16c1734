package io.lockfabric.client;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricException;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A bounded pool of endpoints of one fabric that any number of application threads share.
 *
 * <p>Each endpoint is run by its own client thread, started with {@link Fabric#spawn} (so the
 * endpoint and its lock clients are used by one thread only, as the SPI asks), which takes
 * {@link Job}s from one FIFO queue and runs them one at a time. Callers never touch an endpoint:
 * they {@link #submit} a job and wait for its outcome as they like. When every endpoint is busy,
 * jobs wait in the queue in the order they came, and no thread spins or is made for them: a caller
 * waiting for a job parks, an asynchronous caller does not wait at all.
 *
 * <p>A job may keep its endpoint as long as it needs (a lock request keeps it from the acquisition
 * until the release, as handover protocols require): the pool's size bounds how many jobs are in
 * flight at once.
 *
 * <p><b>A lost memory node.</b> Each endpoint is watched ({@link Endpoint#onMemoryNodeLost}): the
 * job running on an endpoint that loses its memory node is told ({@link Job#memoryNodeLost}), and
 * the next job on that worker gets a new endpoint first, or, if none can be made, finds the loss
 * and why in {@link Worker#memoryNodeLost()} and should fail at once. Thread-safe.
 */
public final class EndpointPool implements AutoCloseable {
    /** Work for one endpoint, run on that endpoint's thread. */
    public interface Job {
        /** Runs on {@code worker}'s thread, which it may keep as long as it needs. */
        void run(Worker worker);

        /** The pool closed before the job got an endpoint: the job will never run. */
        void discard(RuntimeException why);

        /**
         * The endpoint running this job lost its memory node ({@link Endpoint#onMemoryNodeLost}):
         * told on a thread of the fabric, before the job's waits on the memory node fail; keep it
         * short. It may also come just before {@link #run}, which then finds the loss in {@link
         * Worker#memoryNodeLost()}. Default: nothing.
         */
        default void memoryNodeLost(FabricException why) {
        }
    }

    /** One endpoint of the pool and what jobs keep on it (their lock clients), seen from its own thread only. */
    public static final class Worker {
        private final Map<Object, Object> clients = new IdentityHashMap<>();
        private final EndpointPool pool;
        private volatile Endpoint endpoint;
        private volatile FabricException lost;
        private volatile Job current;

        private Worker(Endpoint endpoint, EndpointPool pool) {
            this.pool = pool;
            watch(endpoint);
        }

        private void watch(Endpoint e) {
            this.endpoint = e;
            e.onMemoryNodeLost(why -> {
                if (endpoint != e) {
                    return;
                }
                lost = why;
                Job j = current;
                if (j != null) {
                    j.memoryNodeLost(why);
                }
            });
        }

        /**
         * Why this worker's endpoint lost its memory node, or null if it has not: the endpoint is
         * then dead (every verb fails), and no new one could be made.
         */
        public FabricException memoryNodeLost() {
            return lost;
        }

        /** Replaces a lost endpoint (and drops the clients kept on it) with a new one, if the fabric can make one. */
        private void replaceLostEndpoint(Fabric fabric) {
            FabricException why = lost;
            closeAll();
            try {
                Endpoint fresh = fabric.newEndpoint();
                lost = null;
                watch(fresh);
            } catch (RuntimeException e) {
                FabricException again = new FabricException(why.getMessage() + "; a new connection failed too: "
                        + e.getMessage(), e);
                lost = again;
            }
        }

        /** This worker's endpoint. */
        public Endpoint endpoint() {
            return endpoint;
        }

        /**
         * The object kept on this endpoint for {@code owner} (a lock space's client), made by
         * {@code open} the first time. It is closed with the endpoint if it is {@link AutoCloseable}.
         */
        public <T> T client(Object owner, Class<T> type, Function<Endpoint, T> open) {
            Object c = clients.get(owner);
            if (c == null) {
                c = open.apply(endpoint);
                clients.put(owner, c);
            }
            return type.cast(c);
        }

        /** Whether the pool is closing: a job waiting on this thread should end. */
        public boolean poolClosing() {
            return pool.closed;
        }

        private void closeAll() {
            for (Object c : clients.values()) {
                if (c instanceof AutoCloseable closeable) {
                    try {
                        closeable.close();
                    } catch (Exception ignored) {
                        // the pool is going away; a client that cannot close leaves nothing we could fix
                    }
                }
            }
            clients.clear();
            try {
                endpoint.close();
            } catch (RuntimeException ignored) {
                // a lost or closing endpoint: nothing is left to detach
            }
        }
    }

    private static final Job STOP = new Job() {
        @Override
        public void run(Worker worker) {
        }

        @Override
        public void discard(RuntimeException why) {
        }
    };

    private final LinkedBlockingQueue<Job> queue = new LinkedBlockingQueue<>();
    private final AtomicInteger idle = new AtomicInteger();
    private final List<ClientThread> threads = new ArrayList<>();
    private final int size;
    private volatile boolean closed;
    private volatile RuntimeException startFailure;

    /**
     * Starts {@code size} endpoints of {@code fabric}, each on its own client thread named
     * {@code name-i}, and waits until they exist.
     *
     * @throws IllegalArgumentException if {@code size < 1}
     * @throws RuntimeException         what the fabric threw making an endpoint (the pool is then closed)
     */
    public EndpointPool(Fabric fabric, int size, String name) {
        if (size < 1) {
            throw new IllegalArgumentException("an endpoint pool needs at least one endpoint, got " + size);
        }
        this.size = size;
        CountDownLatch started = new CountDownLatch(size);
        for (int i = 0; i < size; i++) {
            threads.add(fabric.spawn(name + "-" + i, () -> work(fabric, started)));
        }
        boolean interrupted = false;
        while (true) {
            try {
                started.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (startFailure != null) {
            close(TimeUnit.SECONDS.toNanos(1));
            throw startFailure;
        }
    }

    private void work(Fabric fabric, CountDownLatch started) {
        Worker worker;
        try {
            worker = new Worker(fabric.newEndpoint(), this);
        } catch (RuntimeException e) {
            startFailure = e;
            started.countDown();
            return;
        }
        idle.incrementAndGet();
        started.countDown();
        try {
            while (true) {
                Job job;
                try {
                    job = queue.take();
                } catch (InterruptedException e) {
                    if (closed) {
                        break;
                    }
                    continue;
                }
                if (job == STOP) {
                    break;
                }
                idle.decrementAndGet();
                try {
                    if (worker.lost != null && !closed) {
                        worker.replaceLostEndpoint(fabric);
                    }
                    worker.current = job;
                    job.run(worker);
                } catch (RuntimeException e) {
                    job.discard(e);
                } finally {
                    worker.current = null;
                    idle.incrementAndGet();
                }
            }
        } finally {
            worker.closeAll();
        }
    }

    /**
     * Queues {@code job} for the next free endpoint, behind the jobs queued before it.
     *
     * @throws IllegalStateException if the pool is closed
     */
    public void submit(Job job) {
        if (closed) {
            throw new IllegalStateException("the endpoint pool is closed");
        }
        queue.add(job);
        if (closed && queue.remove(job)) {
            throw new IllegalStateException("the endpoint pool is closed");
        }
    }

    /** Whether a job submitted now would find a free endpoint at once (a hint: another caller may take it first). */
    public boolean hasFreeEndpoint() {
        return idle.get() > queue.size();
    }

    /** The number of endpoints. */
    public int size() {
        return size;
    }

    /**
     * Closes the pool: queued jobs are discarded, each endpoint's thread finishes its job (a job
     * waiting on its thread should watch {@link Worker#poolClosing()}; the threads are interrupted
     * after {@code graceNs}) and closes its endpoint. Idempotent.
     */
    public void close(long graceNs) {
        if (closed) {
            return;
        }
        closed = true;
        List<Job> left = new ArrayList<>();
        queue.drainTo(left);
        RuntimeException why = new IllegalStateException("the endpoint pool was closed");
        for (Job j : left) {
            if (j != STOP) {
                j.discard(why);
            }
        }
        for (int i = 0; i < threads.size(); i++) {
            queue.add(STOP);
        }
        long deadline = System.nanoTime() + graceNs;
        for (ClientThread t : threads) {
            if (!t.join(Math.max(0, deadline - System.nanoTime()))) {
                t.interrupt();
            }
        }
        for (ClientThread t : threads) {
            if (!t.join(TimeUnit.SECONDS.toNanos(2))) {
                t.interrupt();
            }
        }
    }

    /** {@link #close(long)} with a grace of 5 seconds. */
    @Override
    public void close() {
        close(TimeUnit.SECONDS.toNanos(5));
    }
}
