/**
 * The in-JVM reference: java.util.concurrent reader-writer locks shared by threads of one JVM.
 */
package io.lockfabric.lock.juc;
