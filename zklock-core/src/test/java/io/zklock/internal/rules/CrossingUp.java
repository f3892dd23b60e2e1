package io.zklock.internal.rules;

import io.zklock.internal.engine.Ticket;

/**
 * Not a test: a rule class that reaches up into the engine, on purpose, for {@link
 * io.zklock.internal.ArchitectureTest} to show that its layer rule fails on it.
 */
final class CrossingUp {
  Ticket ticket;
}
