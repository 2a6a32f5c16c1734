/**
 * What the real-time fabrics (local, tcp, and later shm) share: the JVM's clock, a spin-yield-park
 * idle strategy, the receiving side of a mailbox and an rpc call a thread waits on.
 */
package io.lockfabric.fabric.realtime;
