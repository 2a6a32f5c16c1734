package io.lockfabric.lock.declock;

import org.junit.jupiter.api.Tag;

import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.declock.DecLockClient;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DecLock's liveness probes of a live local holder leave nothing in its mailbox: one client holds
 * the lock for 1.5 leases (long enough for every node-mate waiting behind it to probe it about a
 * dozen times, short enough not to be taken for hung at 2 leases) without reading its mailbox, as
 * an application in its critical section does. Just before it releases, its mailbox must be empty;
 * when probes were messages, they piled up there (one per waiter per lease/8).
 */
@Tag("faults")
class DecLockProbeSimTest {
    static final int WAITERS = 5;
    static final long LEASE_NS = 1_000_000;
    static final long HOLD_NS = LEASE_NS * 3 / 2;
    /** Waiters enter this long after the holder, so that they queue behind it on the node. */
    static final long WAITERS_START_NS = 20_000;

    @ParameterizedTest
    @ValueSource(strings = {"declock-tf", "declock-pf"})
    void probesOfALiveHolderDoNotPileUpInItsMailbox(String protocol) {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(1).clientsPerComputeNode(WAITERS + 1)
                .seed(5).build())) {
            var p = LockProtocols.byName(protocol);
            var options = LockOptions.parse(List.of("lease-ns=" + LEASE_NS, "timeout-ns=" + LEASE_NS));
            List<Endpoint> endpoints = new ArrayList<>();
            List<LockClient> clients = new ArrayList<>();
            for (int c = 0; c <= WAITERS; c++) {
                Endpoint e = fabric.newEndpoint();
                endpoints.add(e);
                clients.add(p.open(e, "probe", 1, options));
            }
            Endpoint holderEndpoint = endpoints.get(0);
            long[] waiterSendsDuringHold = new long[1];
            List<Message> leftInMailbox = new ArrayList<>();
            List<ClientThread> threads = new ArrayList<>();
            threads.add(fabric.spawn("holder", () -> {
                Grant g = clients.get(0).acquire(0, Mode.EXCLUSIVE);
                CounterSnapshot before = waiterCounters(endpoints);
                holderEndpoint.clock().sleepNanos(HOLD_NS);
                waiterSendsDuringHold[0] = waiterCounters(endpoints).minus(before).ops(VerbKind.SEND);
                // the application's view of its mailbox at the end of its critical section
                for (Message m = holderEndpoint.mailbox().poll(); m != null; m = holderEndpoint.mailbox().poll()) {
                    leftInMailbox.add(m);
                }
                clients.get(0).release(g);
            }));
            for (int c = 1; c <= WAITERS; c++) {
                int me = c;
                threads.add(fabric.spawn("waiter" + c, () -> {
                    endpoints.get(me).clock().sleepNanos(WAITERS_START_NS);
                    Grant g = clients.get(me).acquire(0, Mode.EXCLUSIVE);
                    endpoints.get(me).clock().sleepNanos(1_000);
                    clients.get(me).release(g);
                }));
            }
            threads.forEach(ClientThread::join);
            // the waiters probed the holder (a ping counts as a send) about 8 times per lease each
            assertTrue(waiterSendsDuringHold[0] >= WAITERS * 4L,
                    "the waiters probed the holder during its hold: " + waiterSendsDuringHold[0] + " sends");
            assertTrue(leftInMailbox.isEmpty(),
                    leftInMailbox.size() + " messages waited in the live holder's mailbox, the first "
                            + (leftInMailbox.isEmpty() ? null : leftInMailbox.getFirst()));
            assertEquals(0, clients.stream().mapToLong(c -> ((DecLockClient) c).deadLocals()).sum(),
                    "the live holder was not taken for dead");
        }
    }

    private static CounterSnapshot waiterCounters(List<Endpoint> endpoints) {
        CounterSnapshot sum = endpoints.get(1).counters();
        for (int i = 2; i < endpoints.size(); i++) {
            sum = sum.plus(endpoints.get(i).counters());
        }
        return sum;
    }
}
