package com.example.scheduledjob;

import org.springframework.stereotype.Component;

/**
 * Stands for the resource a job writes to (a database table, a file store), which checks fencing
 * tokens: it refuses a write whose token is older than one it has already accepted. In a database:
 * {@code UPDATE ... SET token = :token WHERE token < :token}, and no row updated means refused.
 */
@Component
public class Ledger {
  private long lastToken;
  private long entries;

  /** Writes one settlement; returns its number. */
  public synchronized long settle(long fencingToken) {
    if (fencingToken < lastToken) {
      throw new IllegalStateException(
          "refused: fencing token " + fencingToken + " is older than " + lastToken);
    }
    lastToken = fencingToken;
    return ++entries;
  }

  /** How many settlements were written. */
  public synchronized long entries() {
    return entries;
  }
}
