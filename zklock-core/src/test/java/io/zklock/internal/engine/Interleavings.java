package io.zklock.internal.engine;

import org.jetbrains.lincheck.Lincheck;

/**
 * Runs a scenario of a few threads under Lincheck's model checker: the threads the scenario starts
 * are run one at a time, switched at every shared-memory access and synchronization point, and the
 * switches are chosen so that each run explores another interleaving. A scenario throws (an {@link
 * AssertionError} from {@link #check}) when an interleaving breaks what it holds; a deadlock, a
 * thread left blocked forever, fails it too. The failure prints the interleaving, step by step.
 *
 * <p>The count of interleavings per scenario is the test's own (small: these tests run in every
 * build); {@code -Dzklock.interleavings=N} explores N instead, for a longer search.
 *
 * <p>Inside a scenario: no AssertJ (Lincheck calls {@code equals} on the values it traces, which
 * AssertJ's assertions refuse), no sleeping, no real timer; the code under test is driven by the
 * scenario's threads and fakes that never block the caller. Build every object of a scenario inside
 * it: the model checker gives each object it sees created a deterministic identity hash, so an
 * object made before it runs is looked up under another hash than the one it was stored with (a
 * {@code HashSet} of them then misses it, and the scenario fails for nothing).
 */
public final class Interleavings {
  private Interleavings() {}

  /**
   * Explores {@code invocations} interleavings of {@code scenario} (or -Dzklock.interleavings),
   * after one plain run: it loads and initializes every class the scenario touches (their static
   * initializers, loggers included) outside the model checker, which does not run them well.
   */
  public static void explore(int invocations, Runnable scenario) {
    scenario.run();
    Lincheck.runConcurrentTest(Integer.getInteger("zklock.interleavings", invocations), scenario);
  }

  /** Fails the interleaving unless {@code ok}. */
  public static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }

  /** Starts {@code r} on a new thread of the scenario. */
  public static Thread start(Runnable r) {
    Thread t = new Thread(r);
    t.start();
    return t;
  }

  /** Waits for {@code threads} to end. */
  public static void join(Thread... threads) {
    try {
      for (Thread t : threads) {
        t.join();
      }
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
