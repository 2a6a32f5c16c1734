package io.lockfabric.net;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.Mode;

import java.util.Arrays;
import java.util.List;

/**
 * A client process for crash tests: connects to {@code args[0]} (tcp://host:port), opens table
 * {@code args[2]} of protocol {@code args[1]} with {@code args[3]} locks and options {@code args[5]}
 * (comma-separated name=value, or "-"), takes lock {@code args[4]} exclusive, prints
 * {@code HOLDING <endpoint id> <token>} and holds it until killed. With {@code args[6] = once} it
 * prints {@code GRANTED <endpoint id> <token> <System.nanoTime() at the grant>} instead, releases
 * the lock and exits (a waiter; the monotonic clock is the host's, shared by its processes).
 */
public final class LockHolderMain {
    private LockHolderMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        TcpFabric fabric = TcpFabric.connect(args[0]);
        List<String> options = "-".equals(args[5]) ? List.of() : Arrays.asList(args[5].split(","));
        boolean once = args.length > 6 && "once".equals(args[6]);
        fabric.spawn("holder", () -> {
            Endpoint e = fabric.newEndpoint();
            LockClient client = LockProtocols.byName(args[1]).open(e, args[2], Long.parseLong(args[3]),
                    LockOptions.parse(options));
            Grant g = client.acquire(Long.parseLong(args[4]), Mode.EXCLUSIVE);
            if (once) {
                System.out.println("GRANTED " + e.id() + " " + g.fencingToken() + " " + System.nanoTime());
                client.release(g);
                e.close();
            } else {
                System.out.println("HOLDING " + e.id() + " " + g.fencingToken());
            }
            System.out.flush();
        }).join();
        if (once) {
            fabric.close();
            return;
        }
        Thread.sleep(Long.MAX_VALUE);
    }
}
