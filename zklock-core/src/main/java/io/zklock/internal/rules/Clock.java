package io.zklock.internal.rules;

/** A monotonic time source, injectable for tests; never the wall clock. */
@FunctionalInterface
public interface Clock {
  Clock SYSTEM = System::nanoTime;

  long nanoTime();
}
