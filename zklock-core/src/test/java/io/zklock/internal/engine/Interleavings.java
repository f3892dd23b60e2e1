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
   * A scenario of a few threads: builds its objects, starts and joins its threads, checks what must
   * hold, and returns the objects it built (any array or graph of them; see {@link #explore}).
   */
  @FunctionalInterface
  public interface Scenario {
    Object run();
  }

  /**
   * Explores {@code invocations} interleavings of {@code scenario} (or -Dzklock.interleavings),
   * after one plain run. The plain run loads and initializes every class the scenario touches
   * (their static initializers, loggers included) outside the model checker, which does not run
   * them well; and the objects it returns go to the model checker beside the scenario, which
   * instruments their classes before the first interleaving. Otherwise the model checker
   * instruments a class on its first use, inside the interleaving that first uses it, and one
   * interleaving has 30 s (Lincheck's fixed bound; it then reports "Concurrent test has hung"): the
   * shared timer's first interleaving instrumented 56 classes and took 24 s of its 30 at a load
   * average of 25, and more than 30 at a smaller share of the CPU; with its objects (and {@code
   * samples}) handed over, none, in 1.9 s at a load of 34-43, as long as the interleavings after
   * it.
   */
  public static void explore(int invocations, Scenario scenario) {
    explore(invocations, null, scenario);
  }

  /**
   * {@link #explore(int, Scenario)}, with {@code samples}: objects of the classes the scenario
   * makes and drops inside its threads (which the objects it returns no longer reach), instrumented
   * up front with those. The scenario never sees them: they are made outside it, and only walked.
   */
  public static void explore(int invocations, Object samples, Scenario scenario) {
    Object built = scenario.run();
    Lincheck.runConcurrentTest(
        Integer.getInteger("zklock.interleavings", invocations),
        new Explored(scenario, new Object[] {built, samples}));
  }

  /**
   * What the model checker runs: the scenario, and beside it what its plain run built, which the
   * model checker walks (with this object's other fields) to instrument their classes up front.
   */
  private static final class Explored implements Runnable {
    private final Scenario scenario;
    private final Object built; // never read: only walked, before the first interleaving

    Explored(Scenario scenario, Object built) {
      this.scenario = scenario;
      this.built = built;
    }

    @Override
    public void run() {
      scenario.run();
    }
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
