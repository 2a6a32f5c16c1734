/**
 * CitronFS (CITRON FAST'23 §4.3): a distributed in-memory file system whose metadata and data live
 * on memory nodes and whose I/O takes byte-range locks ({@link io.lockfabric.apps.fs.CitronFs},
 * {@link io.lockfabric.apps.fs.FsClient}).
 */
package io.lockfabric.apps.fs;
