package io.lockfabric.sim;

import io.lockfabric.fabric.CountingMailbox;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.PeerUnreachableException;
import io.lockfabric.fabric.VerbKind;

import java.util.ArrayDeque;

/**
 * A mailbox in virtual time. A send costs the sender {@code clientMessageCpuNs}, passes the
 * sender's compute-node NIC, arrives after the CN-to-CN latency (intra-CN latency within one
 * compute node) and passes the receiver's compute-node NIC; a send to a crashed or closed
 * endpoint fails at once (RNR). Messages from one sender arrive in order. An injected fault may
 * lose a message (the sender does not learn of it) or delay it (and, to keep the order, those
 * after it). A {@link #ping} travels like a send but delivers nothing.
 */
final class SimMailbox extends CountingMailbox {
    /** Stands for a ping's message type in the history hash (no protocol here has a negative type). */
    private static final int PING_TRACE_TYPE = -1;
    /** What a ping does when it arrives. */
    private static final Runnable NOTHING = () -> {
    };

    private final SimFabric fabric;
    private final SimEndpoint endpoint;
    private final ArrayDeque<Message> inbox = new ArrayDeque<>();
    /** Token of the await the owner is blocked in, or -1. */
    private long awaitToken = -1;
    /** Per receiver: the latest arrival time scheduled by this sender, to keep FIFO despite jitter. */
    private final java.util.Map<EndpointId, Long> lastArrival = new java.util.HashMap<>();

    SimMailbox(SimFabric fabric, SimEndpoint endpoint) {
        super(endpoint.id());
        this.fabric = fabric;
        this.endpoint = endpoint;
    }

    @Override
    public void send(EndpointId to, int channel, int type, long lock, long a, long b) {
        SimProcess p = endpoint.enterRequired("send");
        SimEndpoint target = liveTarget(to);
        Message m = new Message(endpoint.id(), channel, type, lock, a, b);
        transmit(p, to, type, () -> target.simMailbox().deliver(m));
    }

    /**
     * A send in every respect (CPU, both NICs, latency, faults, the FIFO order of this sender's
     * messages to {@code to}) except that its arrival puts nothing in the receiver's inbox and
     * wakes nobody.
     */
    @Override
    public void ping(EndpointId to) {
        SimProcess p = endpoint.enterRequired("ping");
        liveTarget(to);
        transmit(p, to, PING_TRACE_TYPE, NOTHING);
    }

    private SimEndpoint liveTarget(EndpointId to) {
        SimEndpoint target = fabric.endpoint(to);
        if (target == null || !target.alive()) {
            throw new PeerUnreachableException(to);
        }
        return target;
    }

    /** Sends one message to the live endpoint {@code to}: {@code arrive} runs when it has passed that node's NIC. */
    private void transmit(SimProcess p, EndpointId to, int traceType, Runnable arrive) {
        counters.record(VerbKind.SEND, Message.WIRE_BYTES);
        Simulation sim = fabric.simulation();
        long latency = to.node() == endpoint.id().node() ? fabric.config().intraCnMessageNs()
                : fabric.config().cnMessageOneWayNs();
        long cpuDone = fabric.cpuDone(endpoint.id(), sim.now(), fabric.config().clientMessageCpuNs());
        long arrival = fabric.leaveNic(endpoint.id(), cpuDone) + latency + fabric.jitterNs();
        long fault = fabric.messageFaultNs();
        sim.record(p.index(), VerbKind.SEND.ordinal(), to.pack(), traceType);
        if (fault >= 0) {
            arrival = Math.max(arrival + fault, lastArrival.getOrDefault(to, 0L));
            lastArrival.put(to, arrival);
            fabric.deliverVia(to, arrival, arrive);
        }
        fabric.sleepTrue(cpuDone - sim.now());
    }

    void deliver(Message m) {
        if (!endpoint.alive()) {
            return;
        }
        inbox.add(m);
        SimProcess owner = endpoint.owner();
        if (awaitToken >= 0 && owner != null) {
            long token = awaitToken;
            awaitToken = -1;
            fabric.simulation().resume(owner, token, null, null);
        }
    }

    @Override
    public Message poll() {
        endpoint.enter();
        return inbox.poll();
    }

    @Override
    public Message await(long deadlineNanos) {
        SimProcess p = endpoint.enterRequired("await");
        Message m = inbox.poll();
        if (m != null) {
            return m;
        }
        Simulation sim = fabric.simulation();
        long trueDeadline = endpoint.simClock().trueTimeOf(deadlineNanos);
        if (trueDeadline <= sim.now()) {
            return null;
        }
        long token = sim.token(p);
        awaitToken = token;
        if (trueDeadline != Long.MAX_VALUE) {
            sim.schedule(trueDeadline, () -> sim.resume(p, token, null, null));
        }
        sim.block(p);
        awaitToken = -1;
        return inbox.poll();
    }
}
