package io.lockfabric.lock.declock;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.Mode;
import io.lockfabric.protocols.LockProtocols;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Readers of one compute node share a lock however long its holders have held it, when no one
 * waits behind the node: a reader that came after the node's local budget (a quarter of
 * {@code min(lease, timeout)}) used to queue behind the reader holding, until it released (here,
 * until it was taken for hung after two leases), which the client API showed on the shm fabric,
 * whose default protocol is declock-tf and whose timeout (10 ms) makes the budget 2.5 ms.
 */
@Timeout(30)
class DecLockReadersShareTest {

    @ParameterizedTest
    @ValueSource(strings = {"declock-tf", "declock-pf"})
    void aReaderJoinsAReaderThatHeldPastTheBudget(String protocol) throws Exception {
        // budget: min(10 s, 4 ms) / 4 = 1 ms; a holder is taken for hung only after 2 x 10 s
        LockOptions options = LockOptions.parse(List.of("lease-ns=10000000000", "timeout-ns=4000000"));
        LockProtocol p = LockProtocols.byName(protocol);
        try (LocalFabric fabric = LocalFabric.builder().build();
             Endpoint a = fabric.newEndpoint(); Endpoint b = fabric.newEndpoint()) {
            LockClient first = p.open(a, "share", 4, options);
            LockClient second = p.open(b, "share", 4, options);
            Grant held = first.acquire(1, Mode.SHARED);
            Thread.sleep(20); // well past the budget
            CompletableFuture<Grant> joined = CompletableFuture.supplyAsync(() -> second.acquire(1, Mode.SHARED),
                    r -> Thread.ofPlatform().daemon().start(r));
            Grant shared;
            try {
                shared = joined.get(3, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                first.release(held); // lets the waiter in, so the thread ends
                joined.get(5, TimeUnit.SECONDS);
                fail(protocol + ": a reader waited for a reader that held past the budget, with no one waiting behind");
                return;
            }
            assertEquals(Mode.SHARED, shared.mode());
            second.release(shared);
            first.release(held);
            // the lock is free again: an exclusive acquisition goes through
            first.release(first.acquire(1, Mode.EXCLUSIVE));
        }
    }
}
