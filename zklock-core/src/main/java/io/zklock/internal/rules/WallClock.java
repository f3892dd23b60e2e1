package io.zklock.internal.rules;

/**
 * The wall clock, for the few times that are dates by nature: a {@link java.util.Date} deadline
 * given by the JDK's {@link java.util.concurrent.locks.Condition#awaitUntil}, and a time written
 * into a node for people and other processes to read. Never for measuring a wait: that is {@link
 * Clock}'s.
 */
@FunctionalInterface
public interface WallClock {
  WallClock SYSTEM = System::currentTimeMillis;

  /** Milliseconds since the epoch. */
  long millis();
}
