package io.zklock.micrometer;

import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The cardinality guard of {@link ZkLockMetrics}: which lock names may appear as the value of the
 * {@code lock} tag. Every other name is reported as {@value #OTHER}, so a service that locks one
 * name per order id does not create one time series per order.
 *
 * <pre>{@code
 * LockNameTags.none()                                  // every lock is "other" (the default)
 * LockNameTags.allow(Set.of("nightly-report", "billing"))
 * LockNameTags.matching(name -> !name.contains("/")).limit(50)  // at most 50 distinct names
 * }</pre>
 *
 * <p>With a limit, the first {@code max} distinct allowed names seen keep their own tag for the
 * life of this object; later ones are {@value #OTHER}. Instances are thread-safe.
 */
public final class LockNameTags {
  /** The tag value of every lock name that is not allowed its own. */
  public static final String OTHER = "other";

  private final Predicate<String> allowed;
  private final int max;
  private final Set<String> admitted = ConcurrentHashMap.newKeySet();

  private LockNameTags(Predicate<String> allowed, int max) {
    this.allowed = allowed;
    this.max = max;
  }

  /** No lock gets its own tag: every lock name is reported as {@value #OTHER}. */
  public static LockNameTags none() {
    return new LockNameTags(name -> false, 0);
  }

  /** Exactly these lock names get their own tag. */
  public static LockNameTags allow(Collection<String> names) {
    Set<String> copy = Set.copyOf(names);
    return new LockNameTags(copy::contains, copy.size());
  }

  /**
   * Lock names that pass {@code allowed} get their own tag, with no limit: add {@link #limit(int)}
   * unless the predicate alone bounds the number of names.
   */
  public static LockNameTags matching(Predicate<String> allowed) {
    return new LockNameTags(Objects.requireNonNull(allowed, "allowed"), Integer.MAX_VALUE);
  }

  /** Every lock name gets its own tag, up to {@code max} distinct names. */
  public static LockNameTags firstDistinct(int max) {
    return matching(name -> true).limit(max);
  }

  /**
   * The same rule with at most {@code max} distinct names tagged; later names are {@value #OTHER}.
   *
   * @throws IllegalArgumentException if {@code max} is negative
   */
  public LockNameTags limit(int max) {
    if (max < 0) {
      throw new IllegalArgumentException("max distinct lock names must not be negative: " + max);
    }
    return new LockNameTags(allowed, max);
  }

  /** The value of the {@code lock} tag for a lock of this name. */
  public String tagValue(String lockName) {
    if (!allowed.test(lockName)) {
      return OTHER;
    }
    if (admitted.contains(lockName)) {
      return lockName;
    }
    synchronized (admitted) {
      if (admitted.contains(lockName) || admitted.size() < max) {
        admitted.add(lockName);
        return lockName;
      }
    }
    return OTHER;
  }
}
