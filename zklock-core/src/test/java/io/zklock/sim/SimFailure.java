package io.zklock.sim;

/** A property the checker found broken (or a crash of the world); {@link #rule} names which. */
public final class SimFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public final String rule;

  public SimFailure(String rule, String message) {
    super(rule + ": " + message);
    this.rule = rule;
  }

  public SimFailure(String rule, String message, Throwable cause) {
    super(rule + ": " + message, cause);
    this.rule = rule;
  }
}
