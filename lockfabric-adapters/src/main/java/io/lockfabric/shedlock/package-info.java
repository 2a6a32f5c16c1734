/**
 * The ShedLock adapter: {@link io.lockfabric.shedlock.LockFabricLockProvider}, a {@code LockProvider}
 * whose locks are a {@link io.lockfabric.LockSpace}'s. Needs {@code net.javacrumbs.shedlock:shedlock-core}
 * (7.x) on the class path, which this module does not bring (an optional dependency).
 */
package io.lockfabric.shedlock;
