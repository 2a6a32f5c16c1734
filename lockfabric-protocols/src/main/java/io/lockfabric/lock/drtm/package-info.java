/**
 * DrTM (SOSP'15): the CAS write lock with time-leased readers.
 */
package io.lockfabric.lock.drtm;
