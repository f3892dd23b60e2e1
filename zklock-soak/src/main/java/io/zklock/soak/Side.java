package io.zklock.soak;

/**
 * The lock kinds of the workload, each with its lock directory (which is also the fenced store's
 * key) and its store side (see {@link FencedStore}). Adding a lock kind is one constant here and
 * one line in {@link SoakClient#openLocks}.
 */
public enum Side {
  /** {@code locks.mutex("soak/mutex")}. */
  MUTEX("soak/mutex", "M", true),
  /** {@code locks.readWriteLock("soak/rw").writeLock()}. */
  WRITE("soak/rw", "W", true),
  /** {@code locks.readWriteLock("soak/rw").readLock()}. */
  READ("soak/rw", "R", false),
  /**
   * {@code locks.mutex("soak/cohort", LockOptions.cohort())}: the workers of one client share one
   * node; fenced like the mutex (its tokens are {@code (czxid << 16) | k}).
   */
  COHORT("soak/cohort", "M", true),
  /**
   * {@code locks.readWriteLock("soak/cohort-rw", LockOptions.cohort()).writeLock()}: the writers of
   * one client share one {@code cw-} node; fenced like the plain writer (tokens {@code (czxid <<
   * 16) | k}).
   */
  COHORT_WRITE("soak/cohort-rw", "W", true),
  /**
   * {@code locks.readWriteLock("soak/cohort-rw", LockOptions.cohort()).readLock()}: the readers of
   * one client share one {@code cr-} node; fenced like the plain reader.
   */
  COHORT_READ("soak/cohort-rw", "R", false),
  /** {@code locks.semaphore("soak/sem", SEMAPHORE_PERMITS)}: leases, counted not fenced. */
  SEMAPHORE("soak/sem", "S", false);

  /** Leases of the workload's semaphore. */
  public static final int SEMAPHORE_PERMITS = 2;

  private final String dir;
  private final String storeSide;
  private final boolean exclusive;

  Side(String dir, String storeSide, boolean exclusive) {
    this.dir = dir;
    this.storeSide = storeSide;
    this.exclusive = exclusive;
  }

  /** The lock's name (its directory under the namespace); also the fenced store's key. */
  public String dir() {
    return dir;
  }

  /** The side letter the fenced store applies its rule by. */
  public String storeSide() {
    return storeSide;
  }

  /** Whether a holder of this side excludes every other holder of its lock (not a reader). */
  public boolean exclusive() {
    return exclusive;
  }

  /**
   * Whether two holders of this lock directory, of sides {@code this} and {@code other}, conflict.
   */
  public boolean conflictsWith(Side other) {
    if (!dir.equals(other.dir) || this == SEMAPHORE) {
      return false;
    }
    return exclusive || other.exclusive;
  }
}
