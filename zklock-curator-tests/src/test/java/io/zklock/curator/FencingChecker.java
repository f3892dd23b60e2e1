package io.zklock.curator;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The protected resource of the mixed-queue tests: every holder, of either library, enters it when
 * granted and leaves it before releasing. It records an overlap (two inside at once), the order of
 * entries, and whether the fencing tokens of zklock's holders (Curator's have none: -1) strictly
 * increase in the order they entered.
 */
final class FencingChecker {
  private final AtomicReference<String> inside = new AtomicReference<>();
  private final List<String> entries = new ArrayList<>();
  private final List<String> problems = new ArrayList<>();
  private long lastToken = Long.MIN_VALUE;

  /** {@code who} enters with {@code token} (-1 for a Curator holder, which has none). */
  void enter(String who, long token) {
    String other = inside.getAndSet(who);
    synchronized (this) {
      if (other != null) {
        problems.add(who + " entered while " + other + " was inside");
      }
      if (token >= 0) {
        if (token <= lastToken) {
          problems.add(who + " entered with token " + token + " after token " + lastToken);
        }
        lastToken = token;
      }
      entries.add(who);
    }
  }

  /** {@code who} leaves, before it releases its lock. */
  void exit(String who) {
    if (!inside.compareAndSet(who, null)) {
      synchronized (this) {
        problems.add(who + " left while " + inside.get() + " was inside");
      }
    }
  }

  synchronized List<String> entries() {
    return List.copyOf(entries);
  }

  synchronized List<String> problems() {
    return List.copyOf(problems);
  }
}
