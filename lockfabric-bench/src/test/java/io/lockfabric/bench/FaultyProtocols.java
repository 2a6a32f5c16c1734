package io.lockfabric.bench;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.LockUnavailableException;
import io.lockfabric.lock.Mode;

import java.util.concurrent.atomic.AtomicInteger;

/** Deliberately wrong protocols, to show the runner's check and failure handling catch them. */
final class FaultyProtocols {
    private FaultyProtocols() {
    }

    private record FaultyGrant(long lockId, Mode mode, long fencingToken) implements Grant {
    }

    /** Grants every request at once: no mutual exclusion at all, and per-client fencing tokens. */
    static LockProtocol noExclusion() {
        return new Base("no-exclusion") {
            @Override
            public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
                return new Client(table.spec().locks()) {
                    private long token;

                    @Override
                    public Grant acquire(long lockId, Mode mode) {
                        return new FaultyGrant(lockId, mode, ++token);
                    }
                };
            }
        };
    }

    /** Fails every acquisition after {@code okAcquisitions} per client. */
    static LockProtocol failingAfter(int okAcquisitions) {
        return new Base("failing") {
            @Override
            public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
                return new Client(table.spec().locks()) {
                    private int count;

                    @Override
                    public Grant acquire(long lockId, Mode mode) {
                        if (++count > okAcquisitions) {
                            throw new LockUnavailableException("lock " + lockId + " gone");
                        }
                        return new FaultyGrant(lockId, Mode.EXCLUSIVE, count);
                    }
                };
            }
        };
    }

    /**
     * The real {@code cas} lock, except that the first client opened blocks for ever at the start
     * of its {@code blockedAcquisition}-th acquisition, holding nothing: it waits for a message
     * nobody sends (as a tcp client waits for a hand-over from a client whose process died).
     */
    static LockProtocol blocksForever(int blockedAcquisition) {
        LockProtocol cas = LockProtocols.byName("cas");
        AtomicInteger opened = new AtomicInteger();
        return new Base("blocks-forever") {
            @Override
            public boolean supportsShared() {
                return false;
            }

            @Override
            public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
                return cas.tableSpec(tableName, locks, options);
            }

            @Override
            public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
                LockClient real = cas.client(endpoint, table, options);
                boolean blocks = opened.getAndIncrement() == 0;
                return new Client(table.spec().locks()) {
                    private long acquisitions;

                    @Override
                    public Grant acquire(long lockId, Mode mode) {
                        if (blocks && ++acquisitions == blockedAcquisition) {
                            endpoint.mailbox().await(Long.MAX_VALUE);
                            throw new AssertionError("a message came that nobody sent");
                        }
                        return real.acquire(lockId, mode);
                    }

                    @Override
                    public void release(Grant grant) {
                        real.release(grant);
                    }
                };
            }
        };
    }

    /**
     * The real {@code cas} lock, except that one release in {@code every} forgets to release: the
     * lock is then held forever by a client that has moved on.
     */
    static LockProtocol forgetfulRelease(int every) {
        LockProtocol cas = LockProtocols.byName("cas");
        return new Base("forgetful") {
            @Override
            public boolean supportsShared() {
                return false;
            }

            @Override
            public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
                return cas.tableSpec(tableName, locks, options);
            }

            @Override
            public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
                LockClient real = cas.client(endpoint, table, options);
                return new Client(table.spec().locks()) {
                    private int releases;

                    @Override
                    public Grant acquire(long lockId, Mode mode) {
                        return real.acquire(lockId, mode);
                    }

                    @Override
                    public void release(Grant grant) {
                        if (++releases % every != 0) {
                            real.release(grant);
                        }
                    }
                };
            }
        };
    }

    /**
     * {@link #forgetfulRelease} that claims lease recovery (bound 2 ms) it does not have, and pings
     * itself at every acquisition, so a run with message loss loses messages while clients work.
     */
    static LockProtocol forgetfulReleaseClaimingRecovery(int every) {
        LockProtocol forgetful = forgetfulRelease(every);
        return new Base("forgetful-recovering") {
            @Override
            public boolean supportsShared() {
                return false;
            }

            @Override
            public FailureModel failureModel(LockOptions options) {
                return FailureModel.lease(1_000_000, 2_000_000, "claims recovery it does not have");
            }

            @Override
            public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
                return forgetful.tableSpec(tableName, locks, options);
            }

            @Override
            public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
                LockClient real = forgetful.client(endpoint, table, options);
                return new Client(table.spec().locks()) {
                    @Override
                    public Grant acquire(long lockId, Mode mode) {
                        Grant g = real.acquire(lockId, mode);
                        endpoint.mailbox().ping(endpoint.id());
                        return g;
                    }

                    @Override
                    public void release(Grant grant) {
                        real.release(grant);
                    }
                };
            }
        };
    }

    private abstract static class Base implements LockProtocol {
        private final String name;

        Base(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String description() {
            return "test-only faulty protocol";
        }

        @Override
        public boolean supportsShared() {
            return true;
        }

        @Override
        public boolean strictFencing() {
            return true;
        }

        @Override
        public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
            return new TableSpec(tableName, name, locks, 8);
        }
    }

    private abstract static class Client implements LockClient {
        private final long locks;

        Client(long locks) {
            this.locks = locks;
        }

        @Override
        public void release(Grant grant) {
        }

        @Override
        public long locks() {
            return locks;
        }
    }
}
