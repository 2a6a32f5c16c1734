/**
 * The Spring Integration adapter: {@link io.lockfabric.spring.LockFabricLockRegistry}, a
 * {@code LockRegistry} whose locks are a {@link io.lockfabric.LockSpace}'s. Needs
 * {@code org.springframework.integration:spring-integration-core} (7.x) on the class path, which
 * this module does not bring (an optional dependency).
 */
package io.lockfabric.spring;
