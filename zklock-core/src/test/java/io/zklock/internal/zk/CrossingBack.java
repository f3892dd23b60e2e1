package io.zklock.internal.zk;

import io.zklock.internal.engine.RequestContext;

/**
 * Not a test: a class of the session layer that depends on the engine, which depends on the session
 * layer, on purpose: a circle for {@link io.zklock.internal.ArchitectureTest} to detect.
 */
final class CrossingBack {
  RequestContext context;
}
