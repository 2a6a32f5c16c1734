/**
 * The tcp fabric's wire format: length-prefixed frames with request ids, one {@code *Layout} class
 * per frame, and the codec that validates every field.
 */
package io.lockfabric.net.wire;
