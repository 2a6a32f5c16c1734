/**
 * DSLR (SIGMOD'18): the bakery reader-writer lock with lease recovery.
 */
package io.lockfabric.lock.dslr;
