/**
 * The machinery under the client API ({@code io.lockfabric}): the bounded pool of endpoints that
 * application threads share ({@link io.lockfabric.client.EndpointPool}) and the stable key hash of
 * lock spaces ({@link io.lockfabric.client.KeyHash}). Applications use {@code io.lockfabric.LockFabric};
 * these classes are public for the API's own package and for tools, not a stable API.
 */
package io.lockfabric.client;
