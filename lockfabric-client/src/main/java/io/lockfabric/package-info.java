/**
 * The client API of LockFabric: {@link io.lockfabric.LockFabric#open} a fabric, open named
 * {@link io.lockfabric.LockSpace lock spaces} (string keys; {@code java.util.concurrent} locks or
 * {@link io.lockfabric.Held} handles with fencing tokens, try and async variants) and
 * {@link io.lockfabric.RangeSpace range spaces} (CITRON by default) on its memory node. Application
 * threads share a bounded pool of endpoints; timeouts and interrupts abandon a request without
 * cutting the protocol short; leases are watched and their losses reported.
 */
package io.lockfabric;
