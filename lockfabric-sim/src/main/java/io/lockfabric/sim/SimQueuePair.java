package io.lockfabric.sim;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.CountingQueuePair;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.RpcException;
import io.lockfabric.fabric.Verb;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.fabric.memory.MemoryNode;
import io.lockfabric.fabric.memory.PendingRpc;

import java.util.List;

/**
 * A queue pair in virtual time. Called from a simulated process, a verb leaves after the client's
 * CPU cost and a pass through its compute node's {@link ComputeNodeNic}, crosses the network, is
 * admitted by the {@link SimulatedRnic}, takes effect on the {@link MemoryNode} at its completion
 * time (its linearization point), and the reply leaves the memory node (at once, or after its bytes
 * crossed the outbound link when bandwidth is modelled), crosses back and passes the compute node's NIC.
 * Called from outside the simulation (setting up, verifying after a run), verbs execute at once,
 * cost no virtual time and are not counted by the memory node's NIC (which counts what it serves).
 */
final class SimQueuePair extends CountingQueuePair {
    private final SimFabric fabric;
    private final SimEndpoint endpoint;
    private final MemoryNode node;
    private final SimulatedRnic nic;
    private final SimulatedCpu cpu;

    SimQueuePair(SimFabric fabric, SimEndpoint endpoint, MemoryNode node, SimulatedRnic nic, SimulatedCpu cpu) {
        super(node.index());
        this.fabric = fabric;
        this.endpoint = endpoint;
        this.node = node;
        this.nic = nic;
        this.cpu = cpu;
    }

    @Override
    public Object execute(Verb verb) {
        SimProcess p = endpoint.enter();
        counters.recordAll(verb);
        if (p == null) {
            return node.execute(verb);
        }
        Simulation sim = fabric.simulation();
        long token = sim.token(p);
        long arrival = fabric.sendVia(endpoint.id(), fabric.config().clientVerbCpuNs()) + fabric.oneWayNs();
        sim.schedule(arrival, () -> {
            RuntimeException lost = fabric.memoryNodeFailure(node.index(), endpoint.connectedGeneration(node.index()));
            if (lost != null) {
                // the node is gone (or this connection to it is): the error comes back, nothing is served
                fabric.deliverVia(endpoint.id(), sim.now() + fabric.oneWayNs(), () -> sim.resume(p, token, null, lost));
                return;
            }
            long finish = nic.admit(verb, sim.now(), sim.now());
            sim.schedule(finish, () -> {
                RuntimeException failed = fabric.memoryNodeFailure(node.index(), endpoint.connectedGeneration(node.index()));
                if (failed != null) {
                    fabric.deliverVia(endpoint.id(), sim.now() + fabric.oneWayNs(), () -> sim.resume(p, token, null, failed));
                    return;
                }
                Object result = null;
                RuntimeException error = null;
                try {
                    result = node.execute(verb);
                    fabric.executed(node.index(), verb);
                } catch (RuntimeException e) {
                    error = e;
                }
                sim.record(p.index(), verb.kind().ordinal(), verb.address(), hashOf(result));
                Object r = result;
                RuntimeException err = error;
                long leaves = nic.replyLeaves(verb, sim.now());
                fabric.deliverVia(endpoint.id(), leaves + fabric.oneWayNs(), () -> sim.resume(p, token, r, err));
            });
        });
        return sim.block(p);
    }

    @Override
    public void execute(Batch batch) {
        SimProcess p = endpoint.enter();
        List<Verb> verbs = batch.verbs();
        verbs.forEach(counters::recordAll);
        if (p == null) {
            batch.complete(node.execute(verbs));
            return;
        }
        Simulation sim = fabric.simulation();
        long token = sim.token(p);
        Object[] results = new Object[verbs.size()];
        long sent = sim.now();
        if (fabric.config().cnCores() == 0) {
            for (int i = 0; i < verbs.size(); i++) {
                sent = fabric.sendVia(endpoint.id(), fabric.config().clientVerbCpuNs());
            }
        } else {
            long posted = sim.now(); // one client posts its batch's verbs one after another on a shared core
            for (int i = 0; i < verbs.size(); i++) {
                posted = fabric.cpuDone(endpoint.id(), posted, fabric.config().clientVerbCpuNs());
                sent = fabric.leaveNic(endpoint.id(), posted);
            }
        }
        long arrival = sent + fabric.oneWayNs();
        sim.schedule(arrival, () -> {
            RuntimeException lost = fabric.memoryNodeFailure(node.index(), endpoint.connectedGeneration(node.index()));
            if (lost != null) {
                fabric.deliverVia(endpoint.id(), sim.now() + fabric.oneWayNs(), () -> sim.resume(p, token, null, lost));
                return;
            }
            runBatchVerb(p, token, verbs, results, 0, sim.now());
        });
        sim.block(p);
        batch.complete(results);
    }

    /** Admits verb {@code i} once verb {@code i − 1} completed (in order), then the next. */
    private void runBatchVerb(SimProcess p, long token, List<Verb> verbs, Object[] results, int i, long notBefore) {
        runBatchVerb(p, token, verbs, results, i, notBefore, Long.MIN_VALUE);
    }

    /**
     * As above; {@code repliesLeft} is when the replies of the verbs before {@code i} have left the
     * memory node (they queue on its outbound link when bandwidth is modelled; the batch's
     * completion waits for the last of them).
     */
    private void runBatchVerb(SimProcess p, long token, List<Verb> verbs, Object[] results, int i, long notBefore,
                              long repliesLeft) {
        Simulation sim = fabric.simulation();
        Verb verb = verbs.get(i);
        long finish = nic.admit(verb, sim.now(), notBefore);
        sim.schedule(finish, () -> {
            RuntimeException lost = fabric.memoryNodeFailure(node.index(), endpoint.connectedGeneration(node.index()));
            if (lost != null) {
                // the verbs before i took effect before the node failed; this one and the rest never do
                fabric.deliverVia(endpoint.id(), sim.now() + fabric.oneWayNs(), () -> sim.resume(p, token, null, lost));
                return;
            }
            try {
                results[i] = node.execute(verb);
                fabric.executed(node.index(), verb);
            } catch (RuntimeException e) {
                long leaves = Math.max(repliesLeft, nic.replyLeaves(verb, sim.now()));
                fabric.deliverVia(endpoint.id(), leaves + fabric.oneWayNs(), () -> sim.resume(p, token, null, e));
                return;
            }
            sim.record(p.index(), verb.kind().ordinal(), verb.address(), hashOf(results[i]));
            long leaves = Math.max(repliesLeft, nic.replyLeaves(verb, sim.now()));
            if (i + 1 < verbs.size()) {
                runBatchVerb(p, token, verbs, results, i + 1, sim.now(), leaves);
            } else {
                fabric.deliverVia(endpoint.id(), leaves + fabric.oneWayNs(), () -> sim.resume(p, token, null, null));
            }
        });
    }

    @Override
    public byte[] rpc(int service, byte[] request) {
        SimProcess p = endpoint.enter();
        if (p == null) {
            throw new IllegalStateException("rpc is only available inside a simulated process");
        }
        counters.record(VerbKind.RPC, request.length);
        byte[] copy = request.clone();
        Simulation sim = fabric.simulation();
        long token = sim.token(p);
        long extraNs = fabric.config().rpcTransport().extraOneWayNs();
        long arrival = fabric.sendVia(endpoint.id(), fabric.config().clientVerbCpuNs()) + fabric.oneWayNs() + extraNs;
        EndpointId caller = endpoint.id();
        sim.schedule(arrival, () -> {
            RuntimeException lost = fabric.memoryNodeFailure(node.index(), endpoint.connectedGeneration(node.index()));
            if (lost != null) {
                fabric.deliverVia(caller, sim.now() + fabric.oneWayNs() + extraNs, () -> sim.resume(p, token, null, lost));
                return;
            }
            nic.countRpc(copy.length);
            long finish = cpu.admit(nic.rpcArrives(copy.length, sim.now()));
            sim.schedule(finish, () -> {
                RuntimeException failed = fabric.memoryNodeFailure(node.index(),
                        endpoint.connectedGeneration(node.index()));
                if (failed != null) {
                    fabric.deliverVia(caller, sim.now() + fabric.oneWayNs() + extraNs,
                            () -> sim.resume(p, token, null, failed));
                    return;
                }
                serve(p, token, service, copy, caller, extraNs);
            });
        });
        return (byte[]) sim.block(p);
    }

    /** Runs an rpc's handler on the memory node's CPU now and sends its reply back. */
    private void serve(SimProcess p, long token, int service, byte[] copy, EndpointId caller, long extraNs) {
        Simulation sim = fabric.simulation();
        node.call(service, new PendingRpc(caller, copy) {
            @Override
            protected void replied(byte[] response) {
                complete(response, null);
            }

            @Override
            protected void failed(String reason) {
                complete(null, new RpcException(reason));
            }

            private void complete(byte[] response, RuntimeException error) {
                sim.record(p.index(), VerbKind.RPC.ordinal(), service, response == null ? -1 : response.length);
                long leaves = nic.rpcReplyLeaves(response == null ? 0 : response.length, sim.now());
                fabric.deliverVia(caller, leaves + fabric.oneWayNs() + extraNs,
                        () -> sim.resume(p, token, response, error));
            }
        });
    }

    private static long hashOf(Object result) {
        return switch (result) {
            case null -> 0;
            case Long l -> l;
            case io.lockfabric.fabric.Int128 v -> v.lo() * 31 + v.hi();
            case byte[] b -> java.util.Arrays.hashCode(b);
            default -> result.hashCode();
        };
    }
}
