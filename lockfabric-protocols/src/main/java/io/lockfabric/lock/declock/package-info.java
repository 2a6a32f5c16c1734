/**
 * DecLock: the cooperative queue-notify lock ({@code cql}) and the hierarchical DecLock.
 */
package io.lockfabric.lock.declock;
