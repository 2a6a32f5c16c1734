package io.lockfabric.cli;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.net.TcpFabric;
import io.lockfabric.protocols.LockProtocols;

/**
 * A peer process for {@link BenchDeadlineTest}: it joins a tcp memory node, takes lock 0 of a
 * table exclusively, says {@code held} on standard output and then waits, holding it, until it is
 * killed. Arguments: the memory node's address, the protocol, the table's name, its lock count.
 */
final class LockHolderProcess {
    private LockHolderProcess() {
    }

    public static void main(String[] args) throws Exception {
        try (TcpFabric fabric = TcpFabric.connect(args[0]); Endpoint endpoint = fabric.newEndpoint()) {
            LockClient lock = LockProtocols.byName(args[1]).open(endpoint, args[2], Integer.parseInt(args[3]),
                    LockOptions.DEFAULTS);
            lock.acquire(0, Mode.EXCLUSIVE);
            System.out.println("held");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
