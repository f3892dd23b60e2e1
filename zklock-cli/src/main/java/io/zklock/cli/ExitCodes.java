package io.zklock.cli;

/** The exit codes of the {@code zklock} command, documented in {@code docs/cli.md}. */
public final class ExitCodes {
  /** Success (for {@code exec}: the command's own status is returned instead). */
  public static final int OK = 0;

  /** A failure: an unexpected error, or the demo found the ledger inconsistent. */
  public static final int FAILURE = 1;

  /**
   * Bad usage: unknown command or option, bad value, bad lock name, an empty COMMAND, a semaphore's
   * permit count other than the one it stores.
   */
  public static final int USAGE = 2;

  /** {@code exec}: gave up waiting for the lock after {@code --timeout}. */
  public static final int TIMEOUT = 3;

  /** {@code exec}: the lock was lost while the command ran; the command was terminated. */
  public static final int LOCK_LOST = 4;

  /** Could not connect to ZooKeeper. */
  public static final int CANNOT_CONNECT = 5;

  /** {@code exec}: the command could not be started (not found, not executable). */
  public static final int CANNOT_RUN = 127;

  /**
   * Interrupted by Ctrl-C (SIGINT) while waiting for the lock or while the command ran: the shell
   * convention, 128 + 2.
   */
  public static final int INTERRUPTED = 130;

  /** Terminated by SIGTERM while waiting for the lock or while the command ran: 128 + 15. */
  public static final int TERMINATED = 143;

  private ExitCodes() {}
}
