package io.zklock.testkit;

/**
 * The server-free phase of a module's tests: while the system property {@value #PROPERTY} is {@code
 * true} (zklock-core sets it for the test run that comes before its real-server tests), no
 * ZooKeeper server of this kit starts. A test class that needs one is tagged {@value #SERVER_TAG}
 * (JUnit's {@code @Tag}) and runs in the module's second phase; one that is not is told so here, at
 * its first server, instead of slowing down the phase that must fail fast.
 */
public final class ServerFreePhase {
  /** The system property that marks the server-free phase. */
  public static final String PROPERTY = "zklock.test.serverFree";

  /** The JUnit tag of a test class that starts servers. */
  public static final String SERVER_TAG = "server";

  private ServerFreePhase() {}

  /** Whether the current test run is the server-free phase. */
  public static boolean active() {
    return Boolean.getBoolean(PROPERTY);
  }

  /**
   * Refuses to start {@code what} in the server-free phase.
   *
   * @throws IllegalStateException in that phase
   */
  static void refuseServer(String what) {
    if (active()) {
      throw new IllegalStateException(
          what
              + " in the server-free test phase: tag the test class @Tag(\""
              + SERVER_TAG
              + "\") (as ZkTestSupport is) so that it runs with the real-server tests");
    }
  }
}
