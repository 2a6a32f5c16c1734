package io.lockfabric.compare;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;

import java.util.concurrent.TimeUnit;

/**
 * A Hazelcast member as {@code lockfabric compare} runs it, in a process of its own, bound to
 * loopback only, joining the other members by TCP/IP (no multicast, no auto-detection, no phone
 * home, no Jet). Prints {@code LISTENING 127.0.0.1:PORT} once it is up and, with CP members, once CP
 * discovery has completed, followed by {@code cp-members=N}, the CP members the Raft layer knows. Ends when its standard input closes (the comparison is gone) or it is
 * stopped.
 *
 * <p>Arguments: cluster name, this member's port, every member's port (comma-separated), the CP
 * member count (0: the CP subsystem is off, and its structures run in "unsafe" mode on the
 * partitioned AP layer; at least 3: a Raft group of that many members).
 */
public final class HazelcastMemberMain {
    private HazelcastMemberMain() {
    }

    /** Runs the member. */
    public static void main(String[] args) throws InterruptedException {
        StdinWatch.exitAtEndOfInput();
        String cluster = args[0];
        int port = Integer.parseInt(args[1]);
        String[] members = args[2].split(",");
        int cpMembers = Integer.parseInt(args[3]);
        Config config = new Config();
        config.setClusterName(cluster);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.socket.bind.any", "false");
        config.setProperty("hazelcast.local.localAddress", "127.0.0.1");
        config.getJetConfig().setEnabled(false);
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(port).setPortAutoIncrement(false);
        network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true);
        for (String p : members) {
            join.getTcpIpConfig().addMember("127.0.0.1:" + p);
        }
        config.getCPSubsystemConfig().setCPMemberCount(cpMembers);
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        if (cpMembers > 0 && !member.getCPSubsystem().getCPSubsystemManagementService()
                .awaitUntilDiscoveryCompleted(120, TimeUnit.SECONDS)) {
            System.out.println("CP discovery did not complete in 120 s");
            System.exit(1);
        }
        // with CP on: the CP members the Raft layer knows once discovery is done (the comparison checks their number)
        String cp = "";
        if (cpMembers > 0) {
            try {
                cp = " cp-members=" + member.getCPSubsystem().getCPSubsystemManagementService().getCPMembers()
                        .toCompletableFuture().get(60, TimeUnit.SECONDS).size();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                System.out.println("CP members not known: " + e);
                System.exit(1);
            }
        }
        System.out.println("LISTENING 127.0.0.1:" + port + cp);
        System.out.flush();
    }
}
