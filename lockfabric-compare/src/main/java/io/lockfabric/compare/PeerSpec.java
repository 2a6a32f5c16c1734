package io.lockfabric.compare;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How to connect to one system under comparison, as words a client process takes on its command
 * line ({@link ClientProcessMain}): the peer's kind and where its server is.
 *
 * <ul>
 *   <li>{@code lockfabric ADDRESS PROTOCOL SPACE HANDOVERS} ({@code PROTOCOL} {@code default}: the
 *       client API's default for the fabric);
 *   <li>{@code redisson PORT}, {@code curator PORT}, {@code etcd PORT} on loopback;
 *   <li>{@code hazelcast CLUSTER PORT,PORT,...};
 *   <li>{@code none}: no lock at all, every acquisition returns at once. The check must fail on it: it
 *       is how a test shows that overlapping holders in different processes are caught.
 * </ul>
 *
 * @param kind the peer
 * @param args where its server is, as above
 */
record PeerSpec(String kind, List<String> args) {
    PeerSpec {
        args = List.copyOf(args);
    }

    static PeerSpec of(String kind, String... args) {
        return new PeerSpec(kind, Arrays.asList(args));
    }

    /** The words of this spec, for a command line ({@link #parse} reads them back). */
    List<String> words() {
        List<String> out = new ArrayList<>();
        out.add(kind);
        out.addAll(args);
        return out;
    }

    /** The spec in {@code words}, as {@link #words} wrote it. */
    static PeerSpec parse(List<String> words) {
        if (words.isEmpty()) {
            throw new IllegalArgumentException("no peer given");
        }
        return new PeerSpec(words.get(0), words.subList(1, words.size()));
    }

    /**
     * Connects to the peer for {@code w}'s threads.
     *
     * @throws IllegalArgumentException if the kind is unknown or its words are wrong
     */
    PeerClient open(CompareWorkload w) throws InterruptedException {
        return switch (kind) {
            case "lockfabric" -> {
                need(4);
                String protocol = args.get(1).equals("default") ? null : args.get(1);
                yield LockFabricPeer.open(args.get(0), protocol, args.get(2), w, Integer.parseInt(args.get(3)));
            }
            case "redisson" -> new RedissonPeer(port(), w);
            case "curator" -> new CuratorPeer(port(), w);
            case "etcd" -> new EtcdPeer(port(), w, 30);
            case "hazelcast" -> {
                need(2);
                yield new HazelcastPeer(args.get(0), Arrays.stream(args.get(1).split(",")).map(Integer::valueOf).toList(), w);
            }
            case "none" -> new PeerClient() {
                @Override
                public Release acquire(int lock, boolean shared) {
                    return () -> { };
                }

                @Override
                public void close() {
                }
            };
            default -> throw new IllegalArgumentException("unknown peer '" + kind + "'");
        };
    }

    private int port() {
        need(1);
        return Integer.parseInt(args.get(0));
    }

    private void need(int n) {
        if (args.size() != n) {
            throw new IllegalArgumentException("peer " + kind + " takes " + n + " word(s), got " + args);
        }
    }
}
