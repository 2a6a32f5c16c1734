/**
 * The CAS spinlock baselines ({@code cas-nb}, {@code cas}) and the reader-writer word ({@code cas-rw}).
 */
package io.lockfabric.lock.cas;
