package io.lockfabric.cli;

import io.lockfabric.compare.Servers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lockfabric txn --workload smallbank --redis URL} on real processes: a redis-server and a
 * memory node ({@code lockfabric serve}) started here (a missing redis-server fails the test), the
 * balances in Redis, the locks from Redis's own lock or from LockFabric over tcp, money conserved.
 */
@Tag("peers")
class TxnOnRedisCommandTest {
    private static Servers.Running redis;
    private static Servers.Running node;

    @BeforeAll
    static void start() {
        redis = Servers.redis();
        node = Servers.memoryNode(64L << 20);
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void smallBankWithTheRedisLockConservesMoney() {
        MainTest.Outcome o = MainTest.run("txn", "--workload", "smallbank", "--locks", "redis", "--redis", redis.address(),
                "--accounts", "100", "--clients", "4", "--duration", "500ms", "--warmup", "100ms", "--format", "json");
        assertEquals(Main.EXIT_OK, o.status(), o.out() + o.err());
        assertTrue(o.out().contains("\"locker\":\"redis-setnx\""), o.out());
        assertTrue(java.util.regex.Pattern.compile("\"conservation\":\\{\"checked\":true,\"expected_total\":(\\d+),\"total\":\\1,\"balances_checked\":[1-9]\\d*,\"balances_differing\":0,\"ok\":true\\}")
                .matcher(o.out()).find(), o.out());
    }

    @Test
    void smallBankWithLockFabricOnTcpAndDataInRedisConservesMoney() {
        MainTest.Outcome o = MainTest.run("txn", "--workload", "smallbank", "--locks", "lockfabric", "--fabric", node.address(),
                "--protocol", "shiftlock", "--redis", redis.address(), "--accounts", "100", "--clients", "4",
                "--duration", "500ms", "--warmup", "100ms");
        assertEquals(Main.EXIT_OK, o.status(), o.out() + o.err());
        assertTrue(o.out().contains("lockfabric/shiftlock") && o.out().contains("conservation ok"), o.out());
    }
}
