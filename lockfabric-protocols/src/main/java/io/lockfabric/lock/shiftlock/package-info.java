/**
 * ShiftLock (FAST'25): writers queue MCS-style and hand over by message, readers count in the entry.
 */
package io.lockfabric.lock.shiftlock;
