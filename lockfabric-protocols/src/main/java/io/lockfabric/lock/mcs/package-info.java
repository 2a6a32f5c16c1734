/**
 * The distributed MCS queue lock.
 */
package io.lockfabric.lock.mcs;
