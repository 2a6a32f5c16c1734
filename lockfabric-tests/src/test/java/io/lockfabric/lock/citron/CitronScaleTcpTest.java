package io.lockfabric.lock.citron;

import io.lockfabric.check.History;
import io.lockfabric.check.RangeExclusionChecker;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.protocols.RangeLockProtocols;
import io.lockfabric.net.TcpFabric;
import io.lockfabric.net.TcpMemoryNode;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CITRON scale-up (FAST'23 §3.9.1) on the tcp fabric, with clients of two fabrics (as of two
 * processes) on one memory node: the tree starts at N = 256 while 4 clients on each fabric lock
 * ranges of a space that grows past it, holding them while each fabric's background poller
 * scales the tree up. The expansions come from the allocation rpc of the table's service, which
 * the server rebuilds from the protocol name and units (one table on the server per scale-up),
 * and the other fabric's clients find their addresses with the service's configuration query.
 * Ranges stay exclusive, tokens increase, and the clients of both fabrics follow the new
 * configurations. (In this package for the client's scale counters.)
 */
@Tag("stress")
class CitronScaleTcpTest {
    private static final long US = 1_000;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void scaleUpWhileClientsOfTwoFabricsHoldRanges() {
        long space = 20_000;
        int perFabric = 4;
        int ops = 120;
        var citron = RangeLockProtocols.byName("citron");
        var opts = LockOptions.parse(List.of("units=256", "scale-poll-ns=200us")).on(TcpFabric.TIMING);
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start();
             TcpFabric fa = TcpFabric.connect(server.uri());
             TcpFabric fb = TcpFabric.connect(server.uri())) {
            History history = new History(System::nanoTime); // both fabrics' clocks are this JVM's
            List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
            List<ClientThread> threads = new ArrayList<>();
            List<CitronClient> locks = new ArrayList<>();
            for (int i = 0; i < 2 * perFabric; i++) {
                int client = i;
                TcpFabric fabric = i < perFabric ? fa : fb;
                Endpoint e = fabric.newEndpoint();
                var l = (CitronClient) citron.open(e, "grow", opts);
                locks.add(l);
                var rec = history.recorder(client);
                threads.add(fabric.spawn("c" + client, () -> {
                    try {
                        SplittableRandom rnd = new SplittableRandom(client * 7919L + 3);
                        for (int op = 0; op < ops; op++) {
                            // the touched space grows over the run, as a file written at its end
                            long reach = Math.max(512, space * (op + 1) / ops);
                            long size = 1 + (long) Math.exp(rnd.nextDouble() * Math.log(2_000));
                            long start = rnd.nextLong(Math.max(1, reach - size));
                            rec.requesting();
                            RangeGrant g = l.acquire(start, start + size, Mode.EXCLUSIVE);
                            rec.granted(g);
                            e.clock().sleepNanos(200 * US); // held while other clients poll and scale up
                            rec.releasing(g);
                            l.release(g);
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            threads.forEach(ClientThread::join);
            assertTrue(failures.isEmpty(), failures.toString());
            var holds = history.holds();
            List<Violation> v = new ArrayList<>(RangeExclusionChecker.violations(holds));
            v.addAll(RangeExclusionChecker.fencing(holds));
            assertTrue(v.isEmpty(), v.toString());
            assertEquals(2L * perFabric * ops, holds.size());

            List<CitronClient> onA = locks.subList(0, perFabric);
            List<CitronClient> onB = locks.subList(perFabric, 2 * perFabric);
            long scaleUps = locks.stream().mapToLong(CitronClient::scaleUps).sum();
            long units = locks.stream().mapToLong(CitronClient::units).max().orElseThrow();
            List<String> expansions = server.memory().tables().stream().map(Table::spec)
                    .map(s -> s.name()).filter(n -> n.startsWith("grow/citron-exp-")).sorted().toList();
            System.out.printf("citron scale-up over tcp, two fabrics: %d scale-ups (A %d, B %d), N 256 -> %d,"
                            + " refetches A %s B %s, expansion tables %s%n", scaleUps,
                    onA.stream().mapToLong(CitronClient::scaleUps).sum(),
                    onB.stream().mapToLong(CitronClient::scaleUps).sum(), units,
                    onA.stream().map(CitronClient::refetches).toList(),
                    onB.stream().map(CitronClient::refetches).toList(), expansions);
            assertTrue(scaleUps >= 3, "the tree grew in several steps: " + scaleUps);
            assertTrue(units >= space / 2, "the tree grew towards the space: N = " + units);
            assertEquals(scaleUps, expansions.size(), "one expansion table on the server per scale-up: " + expansions);
            // every scale-up is seen by the other fabric's clients (each client scales up at most
            // the steps it saw, and refetches whatever another client published)
            assertTrue(onA.stream().mapToLong(CitronClient::refetches).sum() > 0
                    && onB.stream().mapToLong(CitronClient::refetches).sum() > 0, "both fabrics followed");
            assertTrue(locks.stream().allMatch(l -> l.units() > 256), "every client left N = 256 behind");
        }
    }
}
