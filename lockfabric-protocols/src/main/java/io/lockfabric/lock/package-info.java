/**
 * The lock SPI: {@link io.lockfabric.lock.LockProtocol} and {@link io.lockfabric.lock.RangeLockProtocol},
 * their clients, grants with fencing tokens, options and open statistics. Each protocol is a
 * package below this one that uses only this package and the fabric SPI.
 */
package io.lockfabric.lock;
