package io.lockfabric.fabric;

import static io.lockfabric.fabric.VerbReference.edgy;
import static io.lockfabric.fabric.VerbReference.randomBoundaries;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The verb-semantics contract of {@code spec/verbs-and-rnic.md}, written once against the fabric SPI
 * only and run against every fabric: subclass it and return a fresh fabric from {@link #newFabric()}.
 *
 * <p>Each test gets a new fabric, one endpoint, and a {@value #TABLE_BYTES}-byte table on it. The
 * randomized tests use {@link SplittableRandom} with the fixed seed {@link #SEED}, which every
 * failure message names. Operation counts are kept modest so the suite also runs over a network.
 *
 * <p>Every test body runs as a client of the fabric, started with {@link Fabric#spawn} (see
 * {@link TestBodyAsClient}); tests that need more clients start them the same way and wait for
 * them only through the fabric (clocks, idle strategies, mailboxes, {@link ClientThread#join()}),
 * never on Java locks, latches or threads of their own, so that the simulator can run them.
 */
@Tag("contract")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(VerbContractTest.TestBodyAsClient.class)
public abstract class VerbContractTest {
    protected static final long SEED = 0x5EED_7AB1E5L;
    protected static final int TABLE_BYTES = 4096;
    protected static final int RANDOM_ITERATIONS = 2_000;
    /** How long a concurrent test may take before it is declared hung. */
    protected static final long CONCURRENT_TIMEOUT_SECONDS = 30;

    protected Fabric fabric;
    protected Endpoint endpoint;
    protected QueuePair qp;
    protected Table table;
    private final List<Endpoint> extraEndpoints = new ArrayList<>();

    /** A fresh, empty fabric; closed by the suite after each test. */
    protected abstract Fabric newFabric();

    @BeforeEach
    void openFabric() {
        fabric = newFabric();
        endpoint = fabric.newEndpoint();
        table = endpoint.openTable(new TableSpec("verbs", "test", 0, TABLE_BYTES));
        qp = endpoint.queuePair(table.memoryNode());
    }

    @AfterEach
    void closeFabric() {
        for (Endpoint e : extraEndpoints) {
            e.close();
        }
        extraEndpoints.clear();
        if (endpoint != null) {
            endpoint.close();
        }
        if (fabric != null) {
            fabric.close();
        }
    }

    // ================================================================ helpers

    /**
     * Table "echo" whose service answers "word0" with its word 0 in hex, "caller" with the caller's
     * id, anything else with "echo:" and the request (mirrored in the tcp tests' VerbContractServices).
     */
    private static TableSpec echoSpec() {
        return new TableSpec("echo", "test", 1, 64).withService(host -> call -> {
            String req = utf8(call.request());
            if (req.equals("word0")) {
                call.reply(utf8(Long.toHexString(host.table().read8(0))));
            } else if (req.equals("caller")) {
                call.reply(utf8(call.caller().toString()));
            } else {
                call.reply(utf8("echo:" + req));
            }
        });
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** Table "failing" whose service fails "fail" with "refused by test" and throws on anything else. */
    private static TableSpec failingSpec() {
        return new TableSpec("failing", "test", 1, 64).withService(host -> call -> {
            if (utf8(call.request()).equals("fail")) {
                call.fail("refused by test");
            } else {
                throw new IllegalStateException("handler crashed");
            }
        });
    }

    /** Another endpoint of the fabric, closed after the test (closing it twice is harmless). */
    protected Endpoint newEndpoint() {
        Endpoint e = fabric.newEndpoint();
        extraEndpoints.add(e);
        return e;
    }

    protected long at(long offset) {
        return table.at(offset);
    }

    /** The table's whole contents. */
    protected byte[] tableBytes() {
        return qp.read(at(0), TABLE_BYTES);
    }

    /** Fills the table with seeded random bytes, so that any stray store shows. */
    protected byte[] fillTableRandomly(long seed) {
        byte[] data = new byte[TABLE_BYTES];
        new SplittableRandom(seed).nextBytes(data);
        qp.write(at(0), data);
        assertArrayEquals(data, tableBytes(), "the table must read back what was written over it");
        return data;
    }

    private static long le64(byte[] b, int from) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (b[from + i] & 0xFFL);
        }
        return v;
    }

    private static String seedMsg(long seed, int iteration) {
        return "seed " + hex(seed) + ", iteration " + iteration + ": ";
    }

    private static String hex(long v) {
        return VerbReference.hex(v);
    }

    private static String hex(Int128 v) {
        return v.toString();
    }

    private static Int128 randomInt128(SplittableRandom r) {
        return new Int128(edgy(r), edgy(r));
    }

    /** Stores {@code value} into a 128-bit entry using only 128-bit atomics (unconditional MCAS). */
    private static void store128(QueuePair q, long address, Int128 value) {
        q.maskedCas128(address, Int128.ZERO, Int128.ZERO, value, Int128.ONES);
    }

    /** Client code of a test: whatever it throws fails the test. */
    @FunctionalInterface
    protected interface ClientBody {
        void run() throws Throwable;
    }

    /** A client started by {@link #startClient}, with what its body threw. */
    protected static final class StartedClient {
        private final ClientThread thread;
        private volatile boolean ended;
        private volatile Throwable failure;

        private StartedClient(Fabric fabric, String name, ClientBody body) {
            this.thread = fabric.spawn(name, () -> {
                try {
                    body.run();
                } catch (Throwable t) {
                    failure = t;
                } finally {
                    ended = true;
                }
            });
        }

        /** Whether the body has returned or thrown. */
        public boolean hasEnded() {
            return ended;
        }

        /** Waits until the body has ended and rethrows what it threw. */
        public void join() {
            thread.join();
            rethrow(failure);
        }
    }

    /**
     * Starts {@code body} as a client of the fabric with {@link Fabric#spawn}: a thread on a
     * real-time fabric, a simulated process on the simulator.
     */
    protected StartedClient startClient(String name, ClientBody body) {
        return new StartedClient(fabric, name, body);
    }

    /**
     * Runs {@code body} as a client of the fabric and waits for it: how every test body runs (see
     * {@link TestBodyAsClient}).
     */
    protected void runAsClient(String name, ClientBody body) {
        startClient(name, body).join();
    }

    /**
     * Waits from a test body, idling on the test endpoint's clock, until every one of
     * {@code clients} has ended, failing if that takes longer than
     * {@value #CONCURRENT_TIMEOUT_SECONDS} s; then rethrows the first failure among them, in start
     * order.
     */
    protected void joinAll(List<StartedClient> clients, String what) {
        Clock clock = endpoint.clock();
        long deadline = clock.nanoTime() + TimeUnit.SECONDS.toNanos(CONCURRENT_TIMEOUT_SECONDS);
        IdleStrategy idle = clock.idleStrategy();
        while (!clients.stream().allMatch(StartedClient::hasEnded)) {
            if (clock.nanoTime() >= deadline) {
                fail(what + " did not finish within " + CONCURRENT_TIMEOUT_SECONDS + " s");
            }
            idle.idle();
        }
        Throwable first = null;
        for (StartedClient c : clients) {
            try {
                c.join();
            } catch (Throwable t) {
                first = first == null ? t : first;
            }
        }
        rethrow(first);
    }

    /** Rethrows {@code t} unchanged if it is unchecked, wrapped in an {@link AssertionError} if not. */
    private static void rethrow(Throwable t) {
        if (t instanceof Error e) {
            throw e;
        }
        if (t instanceof RuntimeException e) {
            throw e;
        }
        if (t != null) {
            throw new AssertionError("client failed: " + t, t);
        }
    }

    /**
     * A start line for {@code parties} clients: counts the caller in, then idles on its clock until
     * all have arrived, so that the clients' operations overlap.
     */
    protected static void awaitStartLine(AtomicInteger arrived, int parties, Clock clock) {
        arrived.incrementAndGet();
        IdleStrategy idle = clock.idleStrategy();
        while (arrived.get() < parties) {
            idle.idle();
        }
    }

    /** One of {@link #runConcurrently}'s clients: number {@code index} from 0, on its own endpoint. */
    @FunctionalInterface
    protected interface Client {
        void run(int index, Endpoint endpoint, QueuePair queuePair) throws Exception;
    }

    /**
     * Runs {@code clients} bodies at once, each as a client of the fabric with its own endpoint
     * (created and closed by the caller), and rethrows the first failure.
     */
    protected void runConcurrently(int clients, Client body) {
        List<Endpoint> endpoints = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            Endpoint e = fabric.newEndpoint();
            e.openTable(table.spec());
            endpoints.add(e);
        }
        AtomicInteger arrived = new AtomicInteger();
        List<StartedClient> started = new ArrayList<>();
        try {
            for (int i = 0; i < clients; i++) {
                int index = i;
                Endpoint e = endpoints.get(i);
                started.add(startClient("verb-contract-client-" + index, () -> {
                    awaitStartLine(arrived, clients, e.clock());
                    body.run(index, e, e.queuePair(table.memoryNode()));
                }));
            }
            joinAll(started, "concurrent clients");
        } finally {
            for (Endpoint e : endpoints) {
                e.close();
            }
        }
    }

    /**
     * Runs every test body (not the set-up and tear-down around it) as a client of the fabric, as
     * the SPI requires of client code: on the simulator only a simulated process may send, call an
     * rpc or wait on a clock or mailbox, and only its verbs take the simulated path through the
     * network and the RNIC.
     */
    static final class TestBodyAsClient implements InvocationInterceptor {
        @Override
        public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                ExtensionContext context) {
            run(invocation, call, context);
        }

        @Override
        public void interceptTestTemplateMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                ExtensionContext context) {
            run(invocation, call, context);
        }

        private static void run(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                ExtensionContext context) {
            // the outermost instance: a test of a verb family runs in an inner (@Nested) instance of the suite
            VerbContractTest test = (VerbContractTest) context.getRequiredTestInstances().getAllInstances().get(0);
            test.runAsClient(call.getExecutable().getName(), invocation::proceed);
        }
    }

    /** READ and WRITE: 8-byte words, byte ranges, 16-byte entries. */
    @Nested
    class ReadsAndWrites {
        @Test
        void write8ThenRead8RoundTripsAtEveryWordOfTheTable() {
            SplittableRandom r = new SplittableRandom(SEED);
            long[] model = new long[TABLE_BYTES / 8];
            for (int w = 0; w < model.length; w += 7) {
                model[w] = edgy(r);
                qp.write8(at(w * 8L), model[w]);
            }
            model[model.length - 1] = 0x8000_0000_0000_0001L;
            qp.write8(at(TABLE_BYTES - 8), model[model.length - 1]);
            for (int w = 0; w < model.length; w++) {
                long got = qp.read8(at(w * 8L));
                assertEquals(model[w], got, "word " + w + " (offset " + (w * 8) + "): expected " + hex(model[w])
                        + ", read " + hex(got));
            }
        }

        @Test
        void wordsAreLittleEndian() {
            qp.write8(at(16), 0x0807_0605_0403_0201L);
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, qp.read(at(16), 8),
                    "write8(0x0807060504030201) must store its least significant byte first");

            qp.write(at(32), new byte[] {(byte) 0xEF, (byte) 0xCD, (byte) 0xAB, (byte) 0x89, 0x67, 0x45, 0x23, 0x01});
            long got = qp.read8(at(32));
            assertEquals(0x0123_4567_89AB_CDEFL, got, "bytes EF CD AB 89 67 45 23 01 read as a word: " + hex(got));

            qp.write(at(41), new byte[] {0x55});
            got = qp.read8(at(40));
            assertEquals(0x5500L, got, "a byte written at offset 41 is bits 8..15 of word 40, got " + hex(got));

            long old = qp.faa(at(40), 0x100);
            assertEquals(0x5500L, old, "faa returns the old value");
            assertArrayEquals(new byte[] {0, 0x56, 0, 0}, qp.read(at(40), 4), "faa(0x100) increments byte 1");
        }

        @Test
        void unalignedWrite8AndRead8MoveEightLittleEndianBytes() {
            for (int k = 1; k < 8; k++) {
                long base = 64L * k;
                long value = 0x1122_3344_5566_7788L + k;
                qp.write8(at(base + k), value);
                byte[] around = qp.read(at(base), 24);
                for (int i = 0; i < 24; i++) {
                    int expected = i >= k && i < k + 8 ? (int) ((value >>> (8 * (i - k))) & 0xFF) : 0;
                    assertEquals(expected, around[i] & 0xFF, "write8 at misaligned offset +" + k + " of " + hex(value)
                            + ": byte " + i + " of the surrounding 24");
                }
                long back = qp.read8(at(base + k));
                assertEquals(value, back, "read8 at misaligned offset +" + k + ": expected " + hex(value) + ", got "
                        + hex(back));
            }
        }

        @Test
        void byteRangesMatchAModelAtRandomOffsetsAndLengths() {
            final int span = 512;
            byte[] model = new byte[span];
            SplittableRandom r = new SplittableRandom(SEED + 1);
            for (int i = 0; i < RANDOM_ITERATIONS; i++) {
                String msg = seedMsg(SEED + 1, i);
                int choice = r.nextInt(4);
                if (choice == 0) {
                    int off = r.nextInt(span / 8) * 8;
                    long v = r.nextLong();
                    qp.write8(at(off), v);
                    for (int b = 0; b < 8; b++) {
                        model[off + b] = (byte) (v >>> (8 * b));
                    }
                } else if (choice == 1) {
                    int off = r.nextInt(span / 8) * 8;
                    long got = qp.read8(at(off));
                    assertEquals(le64(model, off), got, msg + "read8 at " + off + " = " + hex(got));
                } else {
                    int len = r.nextInt(101);
                    int off = r.nextInt(span - len + 1);
                    if (choice == 2) {
                        byte[] data = new byte[len];
                        r.nextBytes(data);
                        qp.write(at(off), data);
                        System.arraycopy(data, 0, model, off, len);
                    } else {
                        int from = off;
                        byte[] got = qp.read(at(from), len);
                        assertEquals(len, got.length, msg + "read of " + len + " bytes returned " + got.length);
                        assertArrayEquals(Arrays.copyOfRange(model, from, from + len), got,
                                msg + "read [" + from + ", +" + len + ")");
                    }
                }
            }
            assertArrayEquals(model, qp.read(at(0), span), "seed " + hex(SEED + 1) + ": final contents");
            byte[] rest = qp.read(at(span), TABLE_BYTES - span);
            assertArrayEquals(new byte[TABLE_BYTES - span], rest, "bytes outside the written span must stay zero");
        }

        @Test
        void zeroLengthReadAndWriteAreNoOps() {
            qp.write8(at(8), 0x1234L);
            assertEquals(0, qp.read(at(8), 0).length, "a read of 0 bytes returns an empty array");
            qp.write(at(8), new byte[0]);
            assertEquals(0x1234L, qp.read8(at(8)), "a write of 0 bytes changes nothing");
        }

        @Test
        void read16ReturnsBothWords() {
            qp.write8(at(48), 0x1111_2222_3333_4444L);
            qp.write8(at(56), 0xAAAA_BBBB_CCCC_DDDDL);
            Int128 v = qp.read16(at(48));
            assertEquals(new Int128(0x1111_2222_3333_4444L, 0xAAAA_BBBB_CCCC_DDDDL), v,
                    "read16 at 48: lo is the word at 48, hi the word at 56; got " + v);
            Int128 e = new Int128(-5L, 77L);
            store128(qp, at(96), e);
            assertEquals(e, qp.read16(at(96)), "read16 sees the entry written by a 128-bit atomic");
            assertEquals(-5L, qp.read8(at(96)), "lo word of a 128-bit entry is at its offset");
            assertEquals(77L, qp.read8(at(104)), "hi word of a 128-bit entry is at offset + 8");
        }

    }

    /** CAS and FAA on 64-bit words. */
    @Nested
    class CasAndFaa {
        @Test
        void casSwapsOnlyWhenTheOldValueMatchesAndReturnsIt() {
            long a = at(8);
            qp.write8(a, 0xDEAD_BEEFL);
            long old = qp.cas(a, 0xDEAD_BEEFL, 0xFEED_FACEL);
            assertEquals(0xDEAD_BEEFL, old, "successful cas returns the old value, got " + hex(old));
            assertEquals(0xFEED_FACEL, qp.read8(a), "successful cas stores the swap value");

            old = qp.cas(a, 0xDEAD_BEEFL, 0x1L);
            assertEquals(0xFEED_FACEL, old, "failed cas returns the current value, got " + hex(old));
            assertEquals(0xFEED_FACEL, qp.read8(a), "failed cas leaves the word unchanged");

            qp.write8(a, -1L);
            old = qp.cas(a, -1L, Long.MIN_VALUE);
            assertEquals(-1L, old, "cas compares all 64 bits, including the sign bit");
            assertEquals(Long.MIN_VALUE, qp.read8(a), "cas of all-ones → 0x8000...");
            old = qp.cas(a, Long.MAX_VALUE, 0);
            assertEquals(Long.MIN_VALUE, old, "cas expecting 0x7fff... on 0x8000... must fail");
            assertEquals(Long.MIN_VALUE, qp.read8(a), "the failed cas must not store");
        }

        @Test
        void faaReturnsTheOldValueAndWrapsModulo2To64() {
            long a = at(24);
            qp.write8(a, -1L);
            assertEquals(-1L, qp.faa(a, 1), "faa returns the old value");
            assertEquals(0L, qp.read8(a), "0xffff_ffff_ffff_ffff + 1 wraps to 0");
            qp.write8(a, Long.MAX_VALUE);
            qp.faa(a, 1);
            assertEquals(Long.MIN_VALUE, qp.read8(a), "0x7fff... + 1 = 0x8000...");
            qp.faa(a, -2);
            assertEquals(Long.MAX_VALUE - 1, qp.read8(a), "faa with a negative delta subtracts, wrapping");

            SplittableRandom r = new SplittableRandom(SEED + 2);
            long model = qp.read8(a);
            for (int i = 0; i < RANDOM_ITERATIONS / 4; i++) {
                long delta = edgy(r);
                long old = qp.faa(a, delta);
                assertEquals(model, old, seedMsg(SEED + 2, i) + "faa(" + hex(delta) + ") returned " + hex(old));
                model += delta;
            }
            assertEquals(model, qp.read8(a), "seed " + hex(SEED + 2) + ": final sum");
        }

    }

    /** Masked CAS: compare mask, swap mask, fetch-and-store and OR as special cases. */
    @Nested
    class MaskedCas {
        @Test
        void maskedCasComparesOnlyTheMaskedBits() {
            long a = at(0);
            qp.write8(a, 0xAAAA_5555_AAAA_5555L);
            long cmpMask = 0x0000_0000_FFFF_0000L;
            long old = qp.maskedCas(a, 0x1234_0000_AAAA_9999L, cmpMask, 0x0000_0000_0000_00FFL, 0xFFL);
            assertEquals(0xAAAA_5555_AAAA_5555L, old, "maskedCas returns the whole old value");
            assertEquals(0xAAAA_5555_AAAA_55FFL, qp.read8(a),
                    "bits outside cmpMask " + hex(cmpMask) + " differ but must not matter: the swap must happen");

            old = qp.maskedCas(a, 0xAAAA_5555_AAAB_55FFL, cmpMask, 0L, -1L);
            assertEquals(0xAAAA_5555_AAAA_55FFL, old, "a failed maskedCas returns the whole old value, got " + hex(old));
            assertEquals(0xAAAA_5555_AAAA_55FFL, qp.read8(a), "one masked bit differs: the word must be unchanged");
        }

        @Test
        void maskedCasReplacesOnlyTheSwapMaskBits() {
            long a = at(8);
            qp.write8(a, 0x0123_4567_89AB_CDEFL);
            long old = qp.maskedCas(a, 0, 0, 0xFFFF_FFFF_FFFF_FFFFL, 0x00F0_0000_0000_0F00L);
            assertEquals(0x0123_4567_89AB_CDEFL, old, "returns the old value");
            long got = qp.read8(a);
            assertEquals(0x01F3_4567_89AB_CFEFL, got, "only swapMask bits may be set from swap, got " + hex(got));
            qp.maskedCas(a, 0x01F3_4567_89AB_CFEFL, -1L, 0, 0xFFFF_0000_0000_0000L);
            got = qp.read8(a);
            assertEquals(0x0000_4567_89AB_CFEFL, got, "swap bits of 0 clear the masked bits, got " + hex(got));
        }

        @Test
        void maskedCasWithZeroCompareMaskIsFetchAndStore() {
            long a = at(16);
            long bits = 0x0000_0000_00FF_FF00L;
            long v = 0x7777_7777_7777_7777L;
            qp.write8(a, v);
            for (long x : new long[] {0x0000_0000_0012_3400L, 0L, bits, 0x0000_0000_00AB_CD00L}) {
                long old = qp.maskedCas(a, ~v, 0, x, bits);
                assertEquals(v, old, "fetch-and-store returns the whole old value, got " + hex(old));
                v = (v & ~bits) | x;
                long got = qp.read8(a);
                assertEquals(v, got, "fetch-and-store of " + hex(x) + " under " + hex(bits) + " leaves " + hex(got));
            }
        }

        @Test
        void maskedCasAsAtomicOr() {
            long a = at(24);
            qp.write8(a, 0x0000_0000_0000_00F0L);
            long[] bitsToSet = {0x1L, 0x0000_0000_0000_00F0L, 0x8000_0000_0000_0000L, 0x0000_0010_0000_0000L};
            long v = 0xF0L;
            for (long bits : bitsToSet) {
                long old = qp.maskedCas(a, 0, 0, bits, bits);
                assertEquals(v, old, "atomic OR returns the old value, got " + hex(old));
                v |= bits;
                long got = qp.read8(a);
                assertEquals(v, got, "after OR " + hex(bits) + ": expected " + hex(v) + ", got " + hex(got));
            }
        }

        @Test
        void maskedCasMatchesTheReferenceOnRandomOperands() {
            SplittableRandom r = new SplittableRandom(SEED + 3);
            long a = at(32);
            Batch batch = new Batch();
            for (int i = 0; i < RANDOM_ITERATIONS; i++) {
                long old = edgy(r);
                long cmpMask = edgy(r);
                // Half the time make the compare succeed on the masked bits.
                long cmp = r.nextBoolean() ? (old & cmpMask) | (edgy(r) & ~cmpMask) : edgy(r);
                long swap = edgy(r);
                long swapMask = edgy(r);
                long returned;
                long got;
                if ((i & 1) == 0) { // as a batch
                    batch.clear();
                    batch.write8(a, old);
                    int m = batch.maskedCas(a, cmp, cmpMask, swap, swapMask);
                    int rd = batch.read8(a);
                    qp.execute(batch);
                    returned = batch.longResult(m);
                    got = batch.longResult(rd);
                } else { // as typed calls
                    qp.write8(a, old);
                    returned = qp.maskedCas(a, cmp, cmpMask, swap, swapMask);
                    got = qp.read8(a);
                }
                String msg = seedMsg(SEED + 3, i) + "maskedCas(old " + hex(old) + ", cmp " + hex(cmp) + ", cmpMask "
                        + hex(cmpMask) + ", swap " + hex(swap) + ", swapMask " + hex(swapMask) + ")";
                assertEquals(old, returned, msg + " must return the old value");
                long expected = VerbReference.maskedCasNewValue(old, cmp, cmpMask, swap, swapMask);
                assertEquals(expected, got, msg + ": expected " + hex(expected) + ", got " + hex(got));
            }
        }

    }

    /** Masked FAA: fields that wrap on their own, carries dropped at each boundary. */
    @Nested
    class MaskedFaa {
        /**
         * Field layouts of an 8-bit window, as field widths (1..4 bits) from the window's bit 0 up. Each
         * run of the exhaustive test packs seven windows into one word.
         */
        private static final int[][] WINDOW_LAYOUTS = {
                {1, 1, 1, 1, 1, 1, 1, 1}, {2, 2, 2, 2}, {4, 4}, {3, 3, 2}, {2, 3, 3}, {1, 3, 4}, {4, 3, 1},
                {3, 1, 4}, {1, 2, 3, 2}, {2, 1, 1, 4}, {4, 2, 2}, {1, 4, 3}, {3, 4, 1}, {2, 4, 2},
                {1, 1, 2, 4}, {4, 1, 1, 2}, {3, 2, 3}, {2, 2, 4}, {1, 2, 1, 4}, {3, 3, 1, 1}, {2, 2, 1, 3},
        };

        private static int windowBoundaries(int[] widths) {
            int mask = 0;
            int top = -1;
            for (int w : widths) {
                top += w;
                mask |= 1 << top;
            }
            if (top != 7) {
                throw new IllegalStateException("layout " + Arrays.toString(widths) + " is not 8 bits wide");
            }
            return mask;
        }

        /** Field values tried per batch (each on a word of its own), so the sweep costs 2 048 round trips, not 65 536. */
        private static final int PER_BATCH = 32;

        /**
         * Exhaustive over every old value and every add of seven 8-bit windows at once (each window has
         * its own field layout of 1..4-bit fields), with the windows starting at bit {@code shift}; the
         * bits below and above them form filler fields. Shift 8 puts the last window at bits 56..63,
         * and there bit 63 is left out of the mask: it must be a boundary anyway.
         */
        @ParameterizedTest(name = "windows at bit {0}")
        @ValueSource(ints = {0, 3, 8})
        void maskedFaaIsExactOnEverySmallFieldValue(int shift) {
            int run = shift == 0 ? 0 : shift == 3 ? 1 : 2;
            long boundary = 0;
            List<String> layout = new ArrayList<>();
            for (int w = 0; w < 7; w++) {
                int[] widths = WINDOW_LAYOUTS[run * 7 + w];
                boundary |= (long) windowBoundaries(widths) << (shift + 8 * w);
                layout.add(Arrays.toString(widths) + "@" + (shift + 8 * w));
            }
            if (shift > 0) {
                boundary |= 1L << (shift - 1); // filler field below the windows
            }
            boundary &= ~(1L << 63); // bit 63 is implicit
            long fillerMask = ~(0x00FF_FFFF_FFFF_FFFFL << shift);
            long fillerOld = 0xA5A5_A5A5_A5A5_A5A5L & fillerMask;
            long fillerAdd = 0x5F5F_5F5F_5F5F_5F5FL & fillerMask;
            // PER_BATCH values of d at once, each on a word of its own: one round trip for them all
            Batch batch = new Batch();
            for (int o = 0; o < 256; o++) {
                for (int d0 = 0; d0 < 256; d0 += PER_BATCH) {
                    batch.clear();
                    long[] olds = new long[PER_BATCH];
                    long[] adds = new long[PER_BATCH];
                    for (int k = 0; k < PER_BATCH; k++) {
                        long old = fillerOld;
                        long add = fillerAdd;
                        for (int w = 0; w < 7; w++) {
                            old |= (long) o << (shift + 8 * w);
                            add |= (long) (d0 + k) << (shift + 8 * w);
                        }
                        olds[k] = old;
                        adds[k] = add;
                        long a = at(40 + 8L * k);
                        batch.write8(a, old);
                        batch.maskedFaa(a, add, boundary);
                        batch.read8(a);
                    }
                    qp.execute(batch);
                    for (int k = 0; k < PER_BATCH; k++) {
                        long old = olds[k];
                        long expected = VerbReference.maskedFaa(old, adds[k], boundary);
                        long returned = batch.longResult(3 * k + 1);
                        long got = batch.longResult(3 * k + 2);
                        if (got != expected || returned != old) {
                            fail(String.format("maskedFaa(old %s, add %s, boundary %s) [window value 0x%02x + 0x%02x, "
                                            + "layouts %s]: returned %s, left %s, expected %s (differing bits %s)",
                                    hex(old), hex(adds[k]), hex(boundary), o, d0 + k, layout, hex(returned), hex(got),
                                    hex(expected), hex(got ^ expected)));
                        }
                    }
                }
            }
        }

        @Test
        void maskedFaaMatchesTheReferenceOnRandomOperands() {
            SplittableRandom r = new SplittableRandom(SEED + 4);
            long a = at(48);
            Batch batch = new Batch();
            for (int i = 0; i < RANDOM_ITERATIONS; i++) {
                long old = edgy(r);
                long add = edgy(r);
                long boundary = randomBoundaries(r);
                long returned;
                long got;
                if ((i & 1) == 0) { // as a batch
                    batch.clear();
                    batch.write8(a, old);
                    int f = batch.maskedFaa(a, add, boundary);
                    int rd = batch.read8(a);
                    qp.execute(batch);
                    returned = batch.longResult(f);
                    got = batch.longResult(rd);
                } else { // as typed calls
                    qp.write8(a, old);
                    returned = qp.maskedFaa(a, add, boundary);
                    got = qp.read8(a);
                }
                String msg = seedMsg(SEED + 4, i) + "maskedFaa(old " + hex(old) + ", add " + hex(add) + ", boundary "
                        + hex(boundary) + ")";
                assertEquals(old, returned, msg + " must return the old value");
                long expected = VerbReference.maskedFaa(old, add, boundary);
                assertEquals(expected, got, msg + ": expected " + hex(expected) + ", got " + hex(got)
                        + " (differing bits " + hex(expected ^ got) + ")");
            }
        }

        @Test
        void maskedFaaWithZeroBoundaryIsOne64BitField() {
            long a = at(56);
            long[][] cases = {
                    {0x0000_0000_FFFF_FFFFL, 1},
                    {-1L, 1},
                    {0x7FFF_FFFF_FFFF_FFFFL, 1},
                    {0x00FF_00FF_00FF_00FFL, 0x0001_0001_0001_0001L},
                    {0x1234_5678_9ABC_DEF0L, -0x1234_5678_9ABC_DEF1L},
                    {0x8000_0000_0000_0000L, 0x8000_0000_0000_0000L},
            };
            for (long[] c : cases) {
                qp.write8(a, c[0]);
                long old = qp.maskedFaa(a, c[1], 0);
                assertEquals(c[0], old, "maskedFaa returns the old value");
                long got = qp.read8(a);
                assertEquals(c[0] + c[1], got, "boundary 0: " + hex(c[0]) + " + " + hex(c[1]) + " must carry through "
                        + "all 64 bits; got " + hex(got));
            }
        }

        @Test
        void maskedFaaDropsTheCarryOutOfAField() {
            long a = at(64);
            qp.write8(a, 0x0000_0000_0000_00FFL);
            qp.maskedFaa(a, 1, 0x80L);
            assertEquals(0L, qp.read8(a), "field 0..7 = 0xff + 1 wraps to 0 and must not carry into bit 8; got "
                    + hex(qp.read8(a)));

            qp.write8(a, 0xFFFF_FFFF_FFFF_FFFFL);
            qp.maskedFaa(a, 0x0001_0001_0001_0001L, 0x8000_8000_8000_8000L);
            assertEquals(0L, qp.read8(a), "four 16-bit fields of 0xffff + 1 each wrap to 0; got " + hex(qp.read8(a)));

            qp.write8(a, 0x7FFF_FFFF_FFFF_FFFFL);
            qp.maskedFaa(a, 1, 0x4000_0000_0000_0000L);
            long got = qp.read8(a);
            assertEquals(0L, got, "field 0..62 of all ones + 1 wraps to 0; its carry must not reach field 63..63; got "
                    + hex(got));
        }

        @Test
        void maskedFaaOfAllOnesDecrementsEveryField() {
            long a = at(72);
            long boundary = 0x8000_8000_8000_8000L;
            qp.write8(a, 0x0005_0000_0009_0001L);
            long old = qp.maskedFaa(a, -1L, boundary);
            assertEquals(0x0005_0000_0009_0001L, old, "returns the old value");
            long got = qp.read8(a);
            assertEquals(0x0004_FFFF_0008_0000L, got, "adding 0xffff to each 16-bit field decrements it (the zero "
                    + "field wraps to 0xffff without borrowing); got " + hex(got));
        }

    }

    /** 128-bit extended atomics on 16-byte entries. */
    @Nested
    class ExtendedAtomics {
        @Test
        void maskedCas128ComparesAndSwapsPerMaskAndReturnsTheWholeOldValue() {
            long a = at(128);
            Int128 v = new Int128(0x1111_2222_3333_4444L, 0x5555_6666_7777_8888L);
            store128(qp, a, v);
            Int128 cmpMask = new Int128(0xFFFFL, 0xFFFF_0000_0000_0000L);
            Int128 old = qp.maskedCas128(a, new Int128(0x4444L, 0x5555_0000_0000_0000L), cmpMask,
                    new Int128(-1L, -1L), new Int128(0xFF00L, 0x00FFL));
            assertEquals(v, old, "maskedCas128 returns the whole old value, got " + old);
            Int128 expected = new Int128(0x1111_2222_3333_FF44L, 0x5555_6666_7777_88FFL);
            assertEquals(expected, qp.read16(a), "only swapMask bits of both halves are replaced");

            old = qp.maskedCas128(a, new Int128(0xFF44L, 0x5554_0000_0000_0000L), cmpMask, Int128.ZERO, Int128.ONES);
            assertEquals(expected, old, "a failed maskedCas128 returns the whole old value, got " + old);
            assertEquals(expected, qp.read16(a), "one masked bit of the hi half differs: nothing may change");

            old = qp.maskedCas128(a, new Int128(0xFF45L, 0x5555_0000_0000_0000L), cmpMask, Int128.ZERO, Int128.ONES);
            assertEquals(expected, old, "a failed maskedCas128 returns the whole old value");
            assertEquals(expected, qp.read16(a), "one masked bit of the lo half differs: nothing may change");

            old = qp.maskedCas128(a, new Int128(0xFF44L, 0x5555_0000_0000_0000L), cmpMask, Int128.ZERO,
                    new Int128(0, 0xFFFF_0000_0000_0000L));
            assertEquals(expected, old, "a successful maskedCas128 returns the whole old value");
            assertEquals(new Int128(0x1111_2222_3333_FF44L, 0x0000_6666_7777_88FFL), qp.read16(a),
                    "both masked halves match: only the swapMask bits of hi are cleared");
        }

        @Test
        void maskedCas128MatchesTheReferenceOnRandomOperands() {
            SplittableRandom r = new SplittableRandom(SEED + 5);
            long a = at(144);
            Batch batch = new Batch();
            for (int i = 0; i < RANDOM_ITERATIONS; i++) {
                Int128 old = randomInt128(r);
                Int128 cmpMask = randomInt128(r);
                Int128 cmp = r.nextBoolean() ? old.and(cmpMask).or(randomInt128(r).and(cmpMask.not())) : randomInt128(r);
                Int128 swap = randomInt128(r);
                Int128 swapMask = randomInt128(r);
                batch.clear();
                batch.maskedCas128(a, Int128.ZERO, Int128.ZERO, old, Int128.ONES);
                int m = batch.maskedCas128(a, cmp, cmpMask, swap, swapMask);
                int rd = batch.read16(a);
                qp.execute(batch);
                String msg = seedMsg(SEED + 5, i) + "maskedCas128(old " + hex(old) + ", cmp " + hex(cmp) + ", cmpMask "
                        + hex(cmpMask) + ", swap " + hex(swap) + ", swapMask " + hex(swapMask) + ")";
                assertEquals(old, batch.int128Result(m), msg + " must return the old value");
                Int128 expected = VerbReference.maskedCas128NewValue(old, cmp, cmpMask, swap, swapMask);
                assertEquals(expected, batch.int128Result(rd), msg + ": wrong result");
            }
        }

        @Test
        void maskedFaa128MatchesTheReferenceOnRandomOperands() {
            SplittableRandom r = new SplittableRandom(SEED + 6);
            long a = at(160);
            Batch batch = new Batch();
            for (int i = 0; i < RANDOM_ITERATIONS; i++) {
                Int128 old = randomInt128(r);
                Int128 add = randomInt128(r);
                long bLo = randomBoundaries(r);
                if (r.nextBoolean()) {
                    bLo &= ~(1L << 63); // a field spans bits 63/64: the carry must cross words
                }
                Int128 boundary = new Int128(bLo, randomBoundaries(r));
                batch.clear();
                batch.maskedCas128(a, Int128.ZERO, Int128.ZERO, old, Int128.ONES);
                int f = batch.maskedFaa128(a, add, boundary);
                int rd = batch.read16(a);
                qp.execute(batch);
                String msg = seedMsg(SEED + 6, i) + "maskedFaa128(old " + hex(old) + ", add " + hex(add)
                        + ", boundary " + hex(boundary) + ")";
                assertEquals(old, batch.int128Result(f), msg + " must return the old value");
                Int128 expected = VerbReference.maskedFaa128(old, add, boundary);
                Int128 got = batch.int128Result(rd);
                assertEquals(expected, got, msg + ": expected " + expected + ", got " + got);
            }
        }

        @Test
        void maskedFaa128CarriesAcrossTheWordBoundaryInsideAField() {
            long a = at(176);
            // field 40..67: lo bit 39 and hi bit 3 are boundaries, bit 63 is not.
            Int128 boundary = new Int128(1L << 39, 1L << 3);
            store128(qp, a, new Int128(0xFFFF_FF00_0000_1234L, 0x0000_0000_0000_0052L));
            Int128 old = qp.maskedFaa128(a, new Int128(1L << 40, 0), boundary);
            assertEquals(new Int128(0xFFFF_FF00_0000_1234L, 0x52L), old, "returns the old value");
            Int128 got = qp.read16(a);
            assertEquals(new Int128(0x0000_0000_0000_1234L, 0x53L), got,
                    "carry out of lo bit 63 inside field 40..67 must reach hi bit 0; got " + got);

            store128(qp, a, new Int128(0xFFFF_FF00_0000_0000L, 0x0000_0000_0000_005FL));
            qp.maskedFaa128(a, new Int128(1L << 40, 0), boundary);
            got = qp.read16(a);
            assertEquals(new Int128(0, 0x50L), got, "field 40..67 of all ones + 1 wraps to 0 and must not carry into "
                    + "hi bit 4; got " + got);

            // whole 128-bit field
            store128(qp, a, new Int128(-1L, 5L));
            qp.maskedFaa128(a, new Int128(1, 0), Int128.ZERO);
            assertEquals(new Int128(0, 6L), qp.read16(a), "boundary 0: one 128-bit field, carry into the hi word");
            store128(qp, a, Int128.ONES);
            qp.maskedFaa128(a, new Int128(1, 0), Int128.ZERO);
            assertEquals(Int128.ZERO, qp.read16(a), "boundary 0: all ones + 1 wraps to 0");
            store128(qp, a, new Int128(0x8000_0000_0000_0000L, 0x7FFF_FFFF_FFFF_FFFFL));
            qp.maskedFaa128(a, new Int128(0x8000_0000_0000_0000L, 0), Int128.ZERO);
            assertEquals(new Int128(0, 0x8000_0000_0000_0000L), qp.read16(a), "carry from bit 63 into bit 64 and up");
        }

        @Test
        void maskedFaa128BoundaryAtBit63KeepsTheWordsApart() {
            long a = at(192);
            Int128 boundary = new Int128(1L << 63, 0);
            store128(qp, a, new Int128(-1L, 41L));
            qp.maskedFaa128(a, new Int128(1, 1), boundary);
            Int128 got = qp.read16(a);
            assertEquals(new Int128(0, 42L), got, "lo field wraps without carrying into hi, hi gets its own +1: " + got);
            // boundary at bit 64 (hi bit 0): field 0..63 plus field 64..64
            store128(qp, a, new Int128(-1L, 0));
            qp.maskedFaa128(a, new Int128(1, 0), new Int128(0, 1));
            got = qp.read16(a);
            assertEquals(new Int128(0, 1), got, "field 0..64: carry from bit 63 sets bit 64: " + got);
            qp.maskedFaa128(a, new Int128(-1L, 1), new Int128(0, 1));
            got = qp.read16(a);
            assertEquals(new Int128(-1L, 0L), got, "field 0..64 holds 2^64; adding 2^65 - 1 gives 2^64 - 1 mod 2^65, "
                    + "and the carry out of bit 64 must not reach bit 65: " + got);
        }

    }

    /** Misaligned and out-of-range accesses: a remote-access error that changes nothing. */
    @Nested
    class BadAccesses {
        private void assertRejected(String what, Runnable verb) {
            byte[] before = tableBytes();
            RemoteAccessException e = assertThrows(RemoteAccessException.class, verb::run,
                    what + " must fail with RemoteAccessException");
            assertNotNull(e.getMessage(), what + ": the error needs a message");
            assertArrayEquals(before, tableBytes(), what + " failed but changed memory");
        }

        @Test
        void misalignedAtomicsFailAndChangeNothing() {
            fillTableRandomly(SEED + 7);
            for (long off : new long[] {1, 2, 3, 4, 5, 6, 7, 8 + 4, TABLE_BYTES - 9}) {
                long a = at(off);
                assertRejected("cas at offset " + off, () -> qp.cas(a, 0, 1));
                assertRejected("faa at offset " + off, () -> qp.faa(a, 1));
                assertRejected("maskedCas at offset " + off, () -> qp.maskedCas(a, 0, 0, -1L, -1L));
                assertRejected("maskedFaa at offset " + off, () -> qp.maskedFaa(a, 1, 0));
                assertRejected("Verb.Cas at offset " + off, () -> qp.execute(new Verb.Cas(a, 0, 1)));
                assertRejected("Verb.Faa at offset " + off, () -> qp.execute(new Verb.Faa(a, 1)));
                assertRejected("Verb.MaskedCas at offset " + off,
                        () -> qp.execute(new Verb.MaskedCas(a, 0, 0, -1L, -1L)));
                assertRejected("Verb.MaskedFaa at offset " + off, () -> qp.execute(new Verb.MaskedFaa(a, 1, 0)));
            }
            for (long off : new long[] {8, 4, 1, 24, 40, TABLE_BYTES - 24}) {
                long a = at(off);
                assertRejected("maskedCas128 at offset " + off,
                        () -> qp.maskedCas128(a, Int128.ZERO, Int128.ZERO, Int128.ONES, Int128.ONES));
                assertRejected("maskedFaa128 at offset " + off,
                        () -> qp.maskedFaa128(a, new Int128(1, 1), Int128.ZERO));
            }
        }

        @Test
        void outOfRangeAccessesFailAndChangeNothing() {
            fillTableRandomly(SEED + 8);
            long end = table.address() + TABLE_BYTES;
            Map<String, Long> bad = new LinkedHashMap<>();
            bad.put("the end of the table", end);
            bad.put("far past the end", end + (1L << 30));
            bad.put("the largest offset of the region", table.address() | RemoteAddress.OFFSET_MASK & ~15L);
            bad.put("just below the table (wraps into another region)", table.address() - 16);
            bad.put("a negative address", -16L);
            bad.put("an unknown region", RemoteAddress.of(9999, 0));
            bad.put("address 0", 0L);
            for (Map.Entry<String, Long> e : bad.entrySet()) {
                String where = e.getKey() + " (" + RemoteAddress.toString(e.getValue()) + ")";
                long a = e.getValue();
                assertRejected("read8 at " + where, () -> qp.read8(a));
                assertRejected("read16 at " + where, () -> qp.read16(a));
                assertRejected("read(8) at " + where, () -> qp.read(a, 8));
                assertRejected("write8 at " + where, () -> qp.write8(a, -1L));
                assertRejected("write(8 bytes) at " + where, () -> qp.write(a, new byte[8]));
                assertRejected("cas at " + where, () -> qp.cas(a, 0, 1));
                assertRejected("faa at " + where, () -> qp.faa(a, 1));
                assertRejected("maskedCas at " + where, () -> qp.maskedCas(a, 0, 0, -1L, -1L));
                assertRejected("maskedFaa at " + where, () -> qp.maskedFaa(a, 1, 0));
                assertRejected("maskedCas128 at " + where,
                        () -> qp.maskedCas128(a, Int128.ZERO, Int128.ZERO, Int128.ONES, Int128.ONES));
                assertRejected("maskedFaa128 at " + where, () -> qp.maskedFaa128(a, Int128.ONES, Int128.ZERO));
                assertRejected("Verb.Read8 at " + where, () -> qp.execute(new Verb.Read8(a)));
                assertRejected("Verb.Write8 at " + where, () -> qp.execute(new Verb.Write8(a, 1)));
            }
            // accesses that start inside and run past the end
            long lastWord = at(TABLE_BYTES - 8);
            assertRejected("read8 4 bytes before the end", () -> qp.read8(lastWord + 4));
            assertRejected("write8 4 bytes before the end", () -> qp.write8(lastWord + 4, -1L));
            assertRejected("read16 of the last word", () -> qp.read16(lastWord));
            assertRejected("maskedCas128 at the end of the table",
                    () -> qp.maskedCas128(lastWord - 8 + 16, Int128.ZERO, Int128.ZERO, Int128.ONES, Int128.ONES));
            for (int len : new int[] {11, 12, 100, TABLE_BYTES}) {
                long a = at(TABLE_BYTES - 10);
                assertRejected("read of " + len + " bytes 10 before the end", () -> qp.read(a, len));
                byte[] data = new byte[len];
                Arrays.fill(data, (byte) 0x5A);
                assertRejected("write of " + len + " bytes 10 before the end", () -> qp.write(a, data));
            }
            assertRejected("read of the whole table plus one byte", () -> qp.read(at(0), TABLE_BYTES + 1));
            assertRejected("read of a negative length", () -> qp.read(at(0), -1));
            assertRejected("read of Integer.MAX_VALUE bytes", () -> qp.read(at(0), Integer.MAX_VALUE));
            assertRejected("Verb.Read of a negative length", () -> qp.execute(new Verb.Read(at(64), -8)));

            // the queue pair still works afterwards
            qp.write8(at(0), 0x600DL);
            assertEquals(0x600DL, qp.read8(at(0)), "the queue pair must keep working after remote access errors");
        }

        @Test
        void accessesAtTheVeryEndOfTheTableSucceed() {
            long lastWord = at(TABLE_BYTES - 8);
            qp.write8(lastWord, 0x1234L);
            assertEquals(0x1234L, qp.cas(lastWord, 0x1234L, 0x5678L), "cas of the last word");
            assertEquals(0x5678L, qp.read8(lastWord), "the last word is usable");
            Int128 v = new Int128(3, 4);
            store128(qp, at(TABLE_BYTES - 16), v);
            assertEquals(v, qp.read16(at(TABLE_BYTES - 16)), "the last 16-byte entry is usable");
            byte[] tail = qp.read(at(TABLE_BYTES - 10), 10);
            assertEquals(10, tail.length, "a read that ends exactly at the end of the table succeeds");
        }

    }

    /** Batches: in order, one round trip, stopped by a bad verb. */
    @Nested
    class Batches {
        @Test
        void batchExecutesInOrderAndReturnsEveryResult() {
            long w = at(200);
            long e = at(208);
            qp.write8(w, 10);
            Batch b = new Batch();
            int faa = b.faa(w, 5);
            int read1 = b.read8(w);
            int cas = b.cas(w, 15, 100);
            int read2 = b.read8(w);
            int failedCas = b.cas(w, 15, 7);
            int write = b.write8(e, 0x0102_0304_0506_0708L);
            int bytes = b.read(e, 3);
            int mcas = b.maskedCas(w, 0, 0, 0xF000L, 0xF000L);
            int mfaa = b.maskedFaa(w, 1, 0);
            int read3 = b.read8(w);
            int mcas128 = b.maskedCas128(at(224), Int128.ZERO, Int128.ZERO, new Int128(1, 2), Int128.ONES);
            int mfaa128 = b.maskedFaa128(at(224), new Int128(1, 1), new Int128(1L << 63, 0));
            int read16 = b.read16(at(224));
            assertEquals(13, b.size(), "batch size");
            assertFalse(b.isExecuted(), "not executed before execute()");
            qp.execute(b);
            assertTrue(b.isExecuted(), "executed after execute()");
            assertEquals(10L, b.longResult(faa), "faa returns the old value");
            assertEquals(15L, b.longResult(read1), "a read after an faa in the same batch sees the increment");
            assertEquals(15L, b.longResult(cas), "cas sees the faa's effect and succeeds");
            assertEquals(100L, b.longResult(read2), "a read after a cas in the same batch sees the swap");
            assertEquals(100L, b.longResult(failedCas), "second cas fails and returns the current value");
            assertEquals(VerbKind.WRITE, b.verbs().get(write).kind(), "verb " + write + " is a write");
            assertArrayEquals(new byte[] {8, 7, 6}, b.bytesResult(bytes), "range read after the write sees it");
            assertEquals(100L, b.longResult(mcas), "maskedCas returns the old value");
            assertEquals(0xF064L, b.longResult(mfaa), "maskedFaa sees the OR");
            assertEquals(0xF065L, b.longResult(read3), "read sees all earlier verbs");
            assertEquals(Int128.ZERO, b.int128Result(mcas128), "maskedCas128 returns the old entry");
            assertEquals(new Int128(1, 2), b.int128Result(mfaa128), "maskedFaa128 sees the earlier store");
            assertEquals(new Int128(2, 3), b.int128Result(read16), "read16 sees the maskedFaa128");
            assertEquals(0xF065L, qp.read8(w), "final word");
        }

        @Test
        void batchCanBeClearedAndReused() {
            Batch b = new Batch();
            b.faa(at(8), 1);
            qp.execute(b);
            assertThrows(IllegalStateException.class, () -> b.faa(at(8), 1), "an executed batch refuses new verbs");
            b.clear();
            assertEquals(0, b.size(), "clear() empties the batch");
            assertFalse(b.isExecuted(), "clear() resets the executed flag");
            int i = b.faa(at(8), 1);
            int j = b.read8(at(8));
            qp.execute(b);
            assertEquals(1L, b.longResult(i), "the reused batch runs again");
            assertEquals(2L, b.longResult(j), "the reused batch runs in order");
        }

        @Test
        void batchWithABadVerbThrowsAndStopsThere() {
            long w = at(8);
            long x = at(16);
            Batch b = new Batch();
            b.faa(w, 1);
            b.cas(at(3), 0, 1); // misaligned
            b.faa(x, 1);
            assertThrows(RemoteAccessException.class, () -> qp.execute(b), "a batch with a misaligned cas must fail");
            assertFalse(b.isExecuted(), "a failed batch is not complete");
            assertEquals(1L, qp.read8(w), "the verb before the bad one took effect (an RNIC executes in order)");
            assertEquals(0L, qp.read8(x), "the verb after the bad one must not take effect");

            Batch c = new Batch();
            c.read8(w);
            c.read8(RemoteAddress.of(9999, 0));
            assertThrows(RemoteAccessException.class, () -> qp.execute(c), "a batch with an unknown region must fail");
            Batch d = new Batch();
            d.read8(w);
            qp.execute(d);
            assertEquals(1L, d.longResult(0), "the queue pair still works after a failed batch");
        }

    }

    /** rpc to the memory node's CPU: services by id, replies now or later, failures. */
    @Nested
    class Rpc {
        @Test
        void rpcToAnUnknownServiceThrows() {
            RpcException e = assertThrows(RpcException.class, () -> qp.rpc(9999, utf8("hello")),
                    "rpc to a service that does not exist");
            assertNotNull(e.getMessage(), "the rpc error needs a message");
            assertThrows(RpcException.class, () -> qp.rpc(table.service(), utf8("hello")),
                    "rpc to a table that has no service");
            assertThrows(RpcException.class, () -> qp.rpc(0, new byte[0]), "rpc to service 0");
            qp.write8(at(0), 3);
            assertEquals(3L, qp.read8(at(0)), "the queue pair still works after rpc errors");
        }

        @Test
        void rpcServiceEchoesAndSeesItsTable() {
            TableSpec spec = echoSpec();
            Table t = endpoint.openTable(spec);
            QueuePair q = endpoint.queuePair(t.memoryNode());
            assertEquals("echo:ping", utf8(q.rpc(t.service(), utf8("ping"))), "the service echoes the request");
            assertEquals("echo:", utf8(q.rpc(t.service(), new byte[0])), "an empty request");
            String big = "x".repeat(200);
            assertEquals("echo:" + big, utf8(q.rpc(t.service(), utf8(big))), "a 200-byte request");
            q.write8(t.at(0), 0xC0FFEEL);
            assertEquals("c0ffee", utf8(q.rpc(t.service(), utf8("word0"))),
                    "the service reads the table's region and sees the WRITE before the rpc");
            assertEquals(endpoint.id().toString(), utf8(q.rpc(t.service(), utf8("caller"))),
                    "RpcCall.caller() is the calling endpoint");
        }

        @Test
        void rpcHandlerFailureThrowsRpcException() {
            TableSpec spec = failingSpec();
            Table t = endpoint.openTable(spec);
            QueuePair q = endpoint.queuePair(t.memoryNode());
            RpcException e = assertThrows(RpcException.class, () -> q.rpc(t.service(), utf8("fail")),
                    "a call the handler fails");
            assertTrue(e.getMessage().contains("refused by test"), "the failure reason reaches the caller: " + e);
            assertThrows(RpcException.class, () -> q.rpc(t.service(), utf8("crash")),
                    "a handler that throws fails the call");
        }

        @Test
        void rpcServiceMayReplyLaterFromAnotherCall() {
            TableSpec spec = new TableSpec("deferred", "test", 1, 64).withService(host -> {
                AtomicReference<RpcCall> parked = new AtomicReference<>();
                return call -> {
                    String req = utf8(call.request());
                    if (req.startsWith("park:")) {
                        if (!parked.compareAndSet(null, call)) {
                            call.fail("already one parked");
                        }
                    } else {
                        RpcCall p = parked.getAndSet(null);
                        if (p == null) {
                            call.reply(utf8("nothing parked"));
                        } else {
                            p.reply(utf8("released " + utf8(p.request()) + " for " + p.caller()));
                            call.reply(utf8("released"));
                        }
                    }
                };
            });
            Table t = endpoint.openTable(spec);
            AtomicReference<String> parkedReply = new AtomicReference<>();
            AtomicReference<EndpointId> parkedCaller = new AtomicReference<>();
            runConcurrently(2, (index, ep, q) -> {
                ep.openTable(spec);
                if (index == 0) {
                    parkedCaller.set(ep.id());
                    parkedReply.set(utf8(q.rpc(t.service(), utf8("park:A"))));
                } else {
                    IdleStrategy idle = ep.clock().idleStrategy();
                    long deadline = ep.clock().nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    while (!utf8(q.rpc(t.service(), utf8("release"))).equals("released")) {
                        assertTrue(ep.clock().nanoTime() < deadline, "the first call never got parked");
                        idle.idle();
                    }
                }
            });
            assertEquals("released park:A for " + parkedCaller.get(), parkedReply.get(),
                    "the parked call gets the reply made from the other client's call");
        }

    }

    /**
     * Posted (unsignaled) verbs and rpcs: in order with the queue pair's later verbs, the caller
     * never waits for them, and a failure is thrown once, by the post or by a later call.
     */
    @Nested
    class Posted {
        @Test
        void postedVerbsExecuteBeforeTheVerbsPostedAfterThem() {
            for (int round = 1; round <= 50; round++) {
                qp.post(new Verb.Write8(at(0), 1000L * round));
                for (int i = 0; i < 5; i++) {
                    qp.post(new Verb.Faa(at(0), 1));
                }
                qp.post(new Verb.Cas(at(8), round - 1, round));
                assertEquals(1000L * round + 5, qp.read8(at(0)),
                        "round " + round + ": the read sees every posted verb");
                assertEquals(round, qp.read8(at(8)), "round " + round + ": the posted CAS swapped");
            }
        }

        @Test
        void aPostedVerbsFailureIsThrownOnceByThePostOrALaterCall() {
            qp.write8(at(0), 5);
            int thrown = 0;
            try {
                qp.post(new Verb.Cas(at(3), 0, 1)); // misaligned
            } catch (RemoteAccessException e) {
                thrown++;
            }
            for (int i = 0; i < 3; i++) {
                try {
                    assertEquals(5L, qp.read8(at(0)));
                } catch (RemoteAccessException e) {
                    thrown++;
                }
            }
            assertEquals(1, thrown,
                    "the misaligned posted CAS fails exactly one call: the post or one of the next two");
            assertEquals(5L, qp.read8(at(0)), "the queue pair works after it");
        }

        @Test
        void aPostedRpcsReplyReachesItsHandlerInOrderWithLaterCalls() {
            TableSpec spec = echoSpec();
            Table t = endpoint.openTable(spec);
            QueuePair q = endpoint.queuePair(t.memoryNode());
            List<String> replies = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int i = 0; i < 20; i++) {
                q.postRpc(t.service(), utf8("p" + i), r -> replies.add(utf8(r)));
            }
            q.write8(t.at(0), 0xBEEFL);
            assertEquals("beef", utf8(q.rpc(t.service(), utf8("word0"))), "a call after the posted ones");
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                expected.add("echo:p" + i);
            }
            assertEquals(expected, List.copyOf(replies),
                    "every posted rpc's reply reached its handler, in order, before the later call's");
        }

        @Test
        void aPostedRpcTheHandlerFailsIsThrownOnceByThePostOrALaterCall() {
            TableSpec spec = failingSpec();
            Table t = endpoint.openTable(spec);
            QueuePair q = endpoint.queuePair(t.memoryNode());
            qp.write8(at(0), 9);
            int thrown = 0;
            AtomicInteger handled = new AtomicInteger();
            try {
                q.postRpc(t.service(), utf8("fail"), r -> handled.incrementAndGet());
            } catch (RpcException e) {
                assertTrue(e.getMessage().contains("refused by test"), "the reason: " + e);
                thrown++;
            }
            for (int i = 0; i < 3; i++) {
                try {
                    assertEquals(9L, q.read8(at(0)));
                } catch (RpcException e) {
                    assertTrue(e.getMessage().contains("refused by test"), "the reason: " + e);
                    thrown++;
                }
            }
            assertEquals(1, thrown, "the failed posted rpc fails exactly one call");
            assertEquals(0, handled.get(), "a failed rpc has no reply to hand over");
        }
    }

    /** Messages between clients: delivery, order, deadlines, dead peers, pings. */
    @Nested
    class Messages {
        @Test
        void sendPollAndAwaitDeliverStampedMessages() {
            Endpoint other = newEndpoint();
            Mailbox mine = endpoint.mailbox();
            assertEquals(endpoint.id(), mine.id(), "a mailbox's id is its endpoint's id");
            assertNull(mine.poll(), "an empty mailbox polls null");
            other.mailbox().send(endpoint.id(), 7, 3, 0x1234_5678_9ABCL, -1L, Long.MIN_VALUE);
            Message m = mine.await(endpoint.clock().nanoTime() + TimeUnit.SECONDS.toNanos(10));
            assertNotNull(m, "the message must arrive");
            assertEquals(new Message(other.id(), 7, 3, 0x1234_5678_9ABCL, -1L, Long.MIN_VALUE), m,
                    "fields are delivered unchanged and from is stamped with the sender");
            assertNull(mine.poll(), "exactly one message was sent");

            endpoint.mailbox().send(other.id(), 1, 2, 3, 4, 5);
            Message back = null;
            IdleStrategy idle = other.clock().idleStrategy();
            long deadline = other.clock().nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (back == null && other.clock().nanoTime() < deadline) {
                back = other.mailbox().poll();
                if (back == null) {
                    idle.idle();
                }
            }
            assertEquals(new Message(endpoint.id(), 1, 2, 3, 4, 5), back, "poll receives the reply, stamped");
        }

        @Test
        void awaitReturnsNullAfterTheDeadline() {
            Clock clock = endpoint.clock();
            long start = clock.nanoTime();
            long deadline = start + TimeUnit.MILLISECONDS.toNanos(30);
            Message m = endpoint.mailbox().await(deadline);
            long now = clock.nanoTime();
            assertNull(m, "nothing was sent, await must return null");
            assertTrue(now >= deadline, "await returned " + (deadline - now) + " ns before its deadline");
            assertNull(endpoint.mailbox().await(start), "a deadline in the past returns at once with null");
        }

        @Test
        void awaitWakesUpForAMessageFromAnotherClient() {
            EndpointId target = endpoint.id();
            Endpoint e = newEndpoint();
            StartedClient sender = startClient("sender", () -> {
                e.clock().sleepNanos(TimeUnit.MILLISECONDS.toNanos(20));
                e.mailbox().send(target, 0, 42, 0, 0, 0);
            });
            Message m = endpoint.mailbox().await(endpoint.clock().nanoTime() + TimeUnit.SECONDS.toNanos(20));
            joinAll(List.of(sender), "the sender");
            assertNotNull(m, "await must return the message sent meanwhile");
            assertEquals(42, m.type(), "message type");
        }

        @Test
        void messagesFromOneSenderArriveInOrder() {
            final int senders = 3;
            final int perSender = 1_000;
            List<Endpoint> from = new ArrayList<>();
            Map<EndpointId, Long> next = new LinkedHashMap<>();
            for (int s = 0; s < senders; s++) {
                Endpoint e = newEndpoint();
                from.add(e);
                next.put(e.id(), 0L);
            }
            List<StartedClient> running = startSenders(from, perSender, endpoint.id());
            long deadline = endpoint.clock().nanoTime() + TimeUnit.SECONDS.toNanos(CONCURRENT_TIMEOUT_SECONDS);
            for (int i = 0; i < senders * perSender; i++) {
                Message m = endpoint.mailbox().await(deadline);
                assertNotNull(m, "only " + i + " of " + senders * perSender + " messages arrived");
                Long expected = next.get(m.from());
                assertNotNull(expected, "message from unknown sender " + m.from());
                assertEquals(expected.longValue(), m.a(), "message " + m.a() + " from " + m.from()
                        + " overtook or lost earlier ones (expected sequence " + expected + ")");
                assertEquals(m.from().pack(), m.b(), "from is stamped with the real sender");
                next.put(m.from(), expected + 1);
            }
            joinAll(running, "the senders");
            assertNull(endpoint.mailbox().poll(), "no extra messages");
        }

        /**
         * Starts a client on each of {@code senders} that sends {@code perSender} messages numbered 0..
         * in {@code a} (and its own packed id in {@code b}) to {@code target}, all from one start line.
         */
        private List<StartedClient> startSenders(List<Endpoint> senders, int perSender, EndpointId target) {
            AtomicInteger arrived = new AtomicInteger();
            List<StartedClient> running = new ArrayList<>();
            for (Endpoint e : senders) {
                running.add(startClient("sender-" + e.id(), () -> {
                    awaitStartLine(arrived, senders.size(), e.clock());
                    for (long seq = 0; seq < perSender; seq++) {
                        e.mailbox().send(target, 0, 1, 0, seq, e.id().pack());
                    }
                }));
            }
            return running;
        }

        @Test
        void sendToAClosedEndpointFailsAtOnce() {
            Endpoint other = newEndpoint();
            EndpointId gone = other.id();
            endpoint.mailbox().send(gone, 0, 0, 0, 0, 0);
            other.close();
            PeerUnreachableException e = assertThrows(PeerUnreachableException.class,
                    () -> endpoint.mailbox().send(gone, 0, 1, 0, 0, 0), "send to a closed endpoint");
            assertEquals(gone, e.peer(), "the exception names the unreachable peer");
            EndpointId never = new EndpointId(EndpointId.MAX_NODE, EndpointId.MAX_QUEUE);
            assertThrows(PeerUnreachableException.class, () -> endpoint.mailbox().send(never, 0, 1, 0, 0, 0),
                    "send to an endpoint that never existed");
        }

        @Test
        void pingToALivePeerSucceedsDeliversNothingAndCountsAsASend() {
            Endpoint other = newEndpoint();
            CounterSnapshot before = endpoint.counters();
            for (int i = 0; i < 3; i++) {
                endpoint.mailbox().ping(other.id());
            }
            assertEquals(3, endpoint.counters().minus(before).ops(VerbKind.SEND), "each ping is counted as one send");
            // messages from one sender arrive in order, so had a ping been delivered it would come first
            endpoint.mailbox().send(other.id(), 0, 9, 0, 0, 0);
            Message first = null;
            IdleStrategy idle = other.clock().idleStrategy();
            long deadline = other.clock().nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (first == null && other.clock().nanoTime() < deadline) {
                first = other.mailbox().poll();
                if (first == null) {
                    idle.idle();
                }
            }
            assertEquals(new Message(endpoint.id(), 0, 9, 0, 0, 0), first, "the first message received is the send, not a ping");
            assertNull(other.mailbox().poll(), "pings enqueue nothing");
            assertEquals(0, other.counters().ops(VerbKind.SEND), "the pinged endpoint counts nothing");
        }

        @Test
        void pingToAClosedOrUnknownEndpointFailsAtOnce() {
            Endpoint other = newEndpoint();
            EndpointId gone = other.id();
            endpoint.mailbox().ping(gone);
            other.close();
            PeerUnreachableException e = assertThrows(PeerUnreachableException.class,
                    () -> endpoint.mailbox().ping(gone), "ping to a closed endpoint");
            assertEquals(gone, e.peer(), "the exception names the unreachable peer");
            EndpointId never = new EndpointId(EndpointId.MAX_NODE, EndpointId.MAX_QUEUE);
            assertThrows(PeerUnreachableException.class, () -> endpoint.mailbox().ping(never),
                    "ping to an endpoint that never existed");
        }

    }

    /** Counters: every verb counted once, at the sender and at the memory node. */
    @Nested
    class Counting {
        /** Runs a fixed mix of verbs and returns, per kind, {ops, payload bytes} it must have counted. */
        private Map<VerbKind, long[]> knownVerbSequence(QueuePair q, Table t) {
            Map<VerbKind, long[]> exp = new LinkedHashMap<>();
            List<Verb> verbs = List.of(
                    new Verb.Read8(t.at(0)), new Verb.Read8(t.at(8)), new Verb.Read8(t.at(16)),
                    new Verb.Read16(t.at(32)), new Verb.Read(t.at(3), 17), new Verb.Read(t.at(100), 64),
                    new Verb.Write8(t.at(0), 5), new Verb.Write8(t.at(8), 6), new Verb.Write(t.at(200), new byte[13]),
                    new Verb.Cas(t.at(0), 5, 7), new Verb.Cas(t.at(0), 5, 9),
                    new Verb.Faa(t.at(8), 1),
                    new Verb.MaskedCas(t.at(16), 0, 0, 1, 1),
                    new Verb.MaskedFaa(t.at(16), 2, 0),
                    new Verb.MaskedCas128(t.at(32), Int128.ZERO, Int128.ZERO, Int128.ONES, Int128.ONES),
                    new Verb.MaskedFaa128(t.at(32), Int128.ONES, Int128.ZERO));
            for (Verb v : verbs) {
                long[] c = exp.computeIfAbsent(v.kind(), k -> new long[2]);
                c[0]++;
                c[1] += v.payloadBytes();
            }
            // typed calls
            q.read8(t.at(0));
            q.read8(t.at(8));
            q.read8(t.at(16));
            q.read16(t.at(32));
            q.read(t.at(3), 17);
            q.read(t.at(100), 64);
            q.write8(t.at(0), 5);
            q.write8(t.at(8), 6);
            q.write(t.at(200), new byte[13]);
            q.cas(t.at(0), 5, 7);
            q.cas(t.at(0), 5, 9);
            q.faa(t.at(8), 1);
            q.maskedCas(t.at(16), 0, 0, 1, 1);
            q.maskedFaa(t.at(16), 2, 0);
            q.maskedCas128(t.at(32), Int128.ZERO, Int128.ZERO, Int128.ONES, Int128.ONES);
            q.maskedFaa128(t.at(32), Int128.ONES, Int128.ZERO);
            // the same verbs again, as one batch
            Batch b = new Batch();
            for (Verb v : verbs) {
                b.add(v);
            }
            q.execute(b);
            for (long[] c : exp.values()) {
                c[0] *= 2;
                c[1] *= 2;
            }
            return exp;
        }

        @Test
        void endpointCountersCountExactlyTheVerbsSent() {
            Endpoint peer = newEndpoint();
            TableSpec echoSpec = new TableSpec("count-echo", "test", 1, 64).withService(host -> c -> c.reply(c.request()));
            Table echo = endpoint.openTable(echoSpec);
            CounterSnapshot before = endpoint.counters();
            Map<VerbKind, long[]> exp = knownVerbSequence(qp, table);
            endpoint.mailbox().send(peer.id(), 0, 0, 0, 0, 0);
            endpoint.mailbox().send(peer.id(), 0, 0, 0, 0, 0);
            qp.rpc(echo.service(), new byte[10]);
            CounterSnapshot delta = endpoint.counters().minus(before);
            for (VerbKind k : VerbKind.values()) {
                long[] c = exp.get(k);
                long expectOps = k == VerbKind.SEND ? 2 : k == VerbKind.RPC ? 1 : c == null ? 0 : c[0];
                assertEquals(expectOps, delta.ops(k), "endpoint counted " + delta.ops(k) + " " + k.label()
                        + " ops, expected " + expectOps + " (all counts: " + delta + ")");
                if (k.isOneSided()) {
                    long expectBytes = c == null ? 0 : c[1];
                    assertEquals(expectBytes, delta.bytes(k), "payload bytes of " + k.label());
                }
            }
            CounterSnapshot peerCounts = peer.counters();
            assertEquals(0, peerCounts.ops(VerbKind.SEND), "the receiver of messages counts no sends: " + peerCounts);
            assertEquals(0, peerCounts.oneSidedOps(), "the peer sent no verbs: " + peerCounts);
        }

        @Test
        void memoryNodeCountersCountEveryInboundVerb() {
            int mn = table.memoryNode();
            Endpoint second = newEndpoint();
            Table t2 = second.openTable(table.spec());
            TableSpec echoSpec = new TableSpec("mn-echo", "test", 1, 64).withService(host -> c -> c.reply(c.request()));
            Table echo = endpoint.openTable(echoSpec);
            CounterSnapshot mnBefore = fabric.memoryNodeCounters(mn);
            CounterSnapshot e1Before = endpoint.counters();
            CounterSnapshot e2Before = second.counters();
            Map<VerbKind, long[]> exp1 = knownVerbSequence(qp, table);
            QueuePair q2 = second.queuePair(t2.memoryNode());
            q2.faa(t2.at(8), 1);
            q2.faa(t2.at(8), 1);
            q2.read8(t2.at(8));
            second.mailbox().send(endpoint.id(), 0, 0, 0, 0, 0);
            qp.rpc(echo.service(), new byte[3]);
            CounterSnapshot mnDelta = fabric.memoryNodeCounters(mn).minus(mnBefore);
            CounterSnapshot clients = endpoint.counters().minus(e1Before).plus(second.counters().minus(e2Before));
            for (VerbKind k : VerbKind.values()) {
                long[] c = exp1.get(k);
                long expectOps = switch (k) {
                    case FAA -> c[0] + 2;
                    case READ -> c[0] + 1;
                    case SEND -> 0;
                    case RPC -> 1;
                    default -> c == null ? 0 : c[0];
                };
                assertEquals(expectOps, mnDelta.ops(k), "memory node " + mn + " counted " + mnDelta.ops(k) + " inbound "
                        + k.label() + ", expected " + expectOps + " (all: " + mnDelta + ")");
                if (k.isOneSided()) {
                    assertEquals(clients.ops(k), mnDelta.ops(k), k.label() + ": inbound at the memory node = sent by "
                            + "its clients");
                    assertEquals(clients.bytes(k), mnDelta.bytes(k), k.label() + " bytes: inbound = sent");
                }
            }
            assertEquals(0, mnDelta.ops(VerbKind.SEND), "messages between clients never reach the memory node");
        }

    }

    /** Tables, endpoints and clocks. */
    @Nested
    class TablesEndpointsAndClocks {
        @Test
        void openingATableTwiceFindsTheSameTable() {
            Table again = endpoint.openTable(new TableSpec("verbs", "test", 0, TABLE_BYTES));
            assertEquals(table.address(), again.address(), "same name, same shape: same address");
            assertEquals(table.memoryNode(), again.memoryNode(), "same memory node");
            Endpoint other = newEndpoint();
            Table fromOther = other.openTable(new TableSpec("verbs", "test", 0, TABLE_BYTES));
            assertEquals(table.address(), fromOther.address(), "another endpoint finds the same table");
            qp.write8(at(64), 0xABCL);
            assertEquals(0xABCL, other.queuePair(fromOther.memoryNode()).read8(fromOther.at(64)),
                    "both endpoints see the same memory");
        }

        @Test
        void openingATableWithAnotherShapeThrows() {
            assertThrows(TableMismatchException.class,
                    () -> endpoint.openTable(new TableSpec("verbs", "other-protocol", 0, TABLE_BYTES)),
                    "another protocol");
            assertThrows(TableMismatchException.class,
                    () -> endpoint.openTable(new TableSpec("verbs", "test", 0, TABLE_BYTES * 2L)), "another size");
            assertThrows(TableMismatchException.class,
                    () -> endpoint.openTable(new TableSpec("verbs", "test", 5, TABLE_BYTES)), "another lock count");
            assertThrows(TableMismatchException.class,
                    () -> newEndpoint().openTable(new TableSpec("verbs", "test", 0, TABLE_BYTES).withFill(new byte[] {1})),
                    "another fill, from another endpoint");
            assertEquals(table.address(), endpoint.openTable(table.spec()).address(), "the original still opens");
        }

        @Test
        void fillPatternIsAppliedAndTablesDoNotOverlap() {
            byte[] pattern = {0x11, 0x22, 0x33, 0x44, 0x55};
            Table filled = endpoint.openTable(new TableSpec("filled", "test", 3, 37).withFill(pattern));
            QueuePair q = endpoint.queuePair(filled.memoryNode());
            byte[] got = q.read(filled.at(0), 37);
            for (int i = 0; i < 37; i++) {
                assertEquals(pattern[i % 5], got[i], "byte " + i + " of a table filled with a 5-byte pattern");
            }
            Table plain = endpoint.openTable(new TableSpec("plain", "test", 3, 64));
            assertArrayEquals(new byte[64], q.read(plain.at(0), 64), "a table without fill starts zeroed");
            assertNotEquals(filled.address(), plain.address(), "two tables, two addresses");
            assertNotEquals(table.address(), plain.address(), "two tables, two addresses");
            q.write(plain.at(0), new byte[64]);
            qp.write(at(0), new byte[TABLE_BYTES]);
            assertArrayEquals(Arrays.copyOf(got, 37), q.read(filled.at(0), 37),
                    "writing other tables must not touch this one");
            Table reopened = newEndpoint().openTable(new TableSpec("filled", "test", 3, 37).withFill(pattern));
            assertEquals(filled.address(), reopened.address(), "reopening with the same fill finds the table");
        }

        @Test
        void endpointsHaveDistinctIdsAndOrdinals() {
            Set<EndpointId> ids = new HashSet<>();
            Set<Integer> ordinals = new HashSet<>();
            List<Endpoint> all = new ArrayList<>(List.of(endpoint));
            for (int i = 0; i < 5; i++) {
                all.add(newEndpoint());
            }
            for (Endpoint e : all) {
                assertTrue(ids.add(e.id()), "duplicate endpoint id " + e.id());
                assertTrue(ordinals.add(e.ordinal()), "duplicate ordinal " + e.ordinal());
                assertTrue(e.ordinal() >= 1 && e.ordinal() < (1 << 24), "ordinal " + e.ordinal() + " out of [1, 2^24)");
                assertEquals(e.id(), e.mailbox().id(), "mailbox id = endpoint id");
                assertSame(fabric, e.fabric(), "endpoint.fabric() is its fabric");
            }
            assertTrue(table.memoryNode() >= 0 && table.memoryNode() < fabric.memoryNodes(), "table's memory node");
            assertEquals(table.memoryNode(), qp.memoryNode(), "queue pair's memory node");
        }

        @Test
        void clockIsMonotonicAndSleepsAtLeastTheGivenTime() {
            Clock clock = endpoint.clock();
            long t0 = clock.nanoTime();
            clock.sleepNanos(TimeUnit.MILLISECONDS.toNanos(5));
            long t1 = clock.nanoTime();
            assertTrue(t1 - t0 >= TimeUnit.MILLISECONDS.toNanos(5), "slept 5 ms but the clock moved " + (t1 - t0) + " ns");
            long prev = t1;
            for (int i = 0; i < 1000; i++) {
                long now = clock.nanoTime();
                assertTrue(now >= prev, "clock went backwards by " + (prev - now) + " ns");
                prev = now;
            }
        }

    }

    /** Atomics under concurrent clients: exact counts, no torn 128-bit entries. */
    @Nested
    class Concurrency {
        @Test
        void int128EntriesAreNeverSeenTornBy128BitAtomics() {
            final int clients = 3;
            final int opsPerClient = 3_000;
            long entry = at(512);
            Int128 halves = new Int128(1L << 63, 0); // lo and hi are separate fields
            long[] applied = new long[clients];
            runConcurrently(clients, (index, ep, q) -> {
                SplittableRandom r = new SplittableRandom(SEED + 100 + index);
                Int128 guess = Int128.ZERO;
                long done = 0;
                for (int i = 0; i < opsPerClient; i++) {
                    Int128 old;
                    if (r.nextBoolean()) {
                        old = q.maskedFaa128(entry, new Int128(1, 1), halves);
                        done++;
                    } else {
                        Int128 next = new Int128(guess.lo() + 1, guess.hi() + 1);
                        old = q.maskedCas128(entry, guess, Int128.ONES, next, Int128.ONES);
                        if (old.equals(guess)) {
                            done++;
                        }
                    }
                    if (old.lo() != old.hi()) {
                        fail("client " + index + " op " + i + " (seed " + hex(SEED + 100 + index) + ") saw a torn entry "
                                + old);
                    }
                    guess = old.equals(guess) ? new Int128(guess.lo() + 1, guess.hi() + 1) : old;
                }
                applied[index] = done;
            });
            long total = 0;
            for (long a : applied) {
                total += a;
            }
            Int128 last = qp.read16(entry);
            assertEquals(new Int128(total, total), last, "every successful 128-bit op added one to each half");
        }

        @Test
        void concurrentMaskedFaaOnSeparateFieldsIsExact() {
            final int clients = 4;
            final int adds = 3_000;
            long word = at(256);
            long boundary = 0x8000_8000_8000_8000L;
            // start each field near its wrap-around so the carries out of them must be dropped
            long start = 0xFF00_FE00_FFFF_F800L;
            qp.write8(word, start);
            runConcurrently(clients, (index, ep, q) -> {
                long one = 1L << (16 * index);
                for (int i = 0; i < adds; i++) {
                    q.maskedFaa(word, one, boundary);
                }
            });
            long got = qp.read8(word);
            for (int f = 0; f < clients; f++) {
                long expected = (((start >>> (16 * f)) & 0xFFFF) + adds) & 0xFFFF;
                long field = (got >>> (16 * f)) & 0xFFFF;
                assertEquals(expected, field, String.format("field %d: started 0x%04x, %d adds: expected 0x%04x, got "
                        + "0x%04x (word %s)", f, (start >>> (16 * f)) & 0xFFFF, adds, expected, field, hex(got)));
            }
        }

        @Test
        void concurrentFaaIsExact() {
            final int clients = 4;
            final int adds = 3_000;
            long word = at(264);
            runConcurrently(clients, (index, ep, q) -> {
                long delta = 1L + ((long) index << 32);
                for (int i = 0; i < adds; i++) {
                    q.faa(word, delta);
                }
            });
            long expected = 0;
            for (int c = 0; c < clients; c++) {
                expected += adds * (1L + ((long) c << 32));
            }
            assertEquals(expected, qp.read8(word), "lost or duplicated faa: " + hex(qp.read8(word)) + " vs " + hex(expected));
        }

        @Test
        void concurrentCasIncrementLoopsAreExact() {
            final int clients = 3;
            final int increments = 2_000;
            long word = at(272);
            long[] failures = new long[clients];
            runConcurrently(clients, (index, ep, q) -> {
                long seen = q.read8(word);
                for (int i = 0; i < increments; i++) {
                    while (true) {
                        long old = q.cas(word, seen, seen + 1);
                        if (old == seen) {
                            seen++;
                            break;
                        }
                        failures[index]++;
                        seen = old;
                    }
                }
            });
            assertEquals((long) clients * increments, qp.read8(word),
                    "cas increment loops lost updates (failed cas per client: " + Arrays.toString(failures) + ")");
        }

        @Test
        void concurrentAtomicOrSetsEveryBit() {
            final int clients = 4;
            long word = at(280);
            runConcurrently(clients, (index, ep, q) -> {
                for (int bit = index; bit < 64; bit += clients) {
                    long b = 1L << bit;
                    long old = q.maskedCas(word, 0, 0, b, b);
                    if ((old & b) != 0) {
                        fail("client " + index + ": bit " + bit + " was set before it OR-ed it (old " + hex(old) + ")");
                    }
                }
            });
            assertEquals(-1L, qp.read8(word), "every bit was OR-ed in by some client: " + hex(qp.read8(word)));
        }
    }

    /** Guards against a subclass's fabric being reused across tests. */
    @Test
    void eachTestGetsAFreshFabric() {
        Supplier<String> msg = () -> "newFabric() must return a fresh fabric; the table was not zero";
        assertArrayEquals(new byte[TABLE_BYTES], tableBytes(), msg);
    }
}
