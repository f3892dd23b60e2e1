package io.zklock.internal.rules;

import java.security.SecureRandom;
import java.util.Random;
import java.util.UUID;

/**
 * Where the random ids in node names come from: a request's attempt id, a Curator-compatible node's
 * UUID, a latch count-down's marker, a double-barrier member's id. One per {@code ZkLocks}; {@link
 * #SECURE} by default. A simulation gives each instance a seeded one, so that a run replays from
 * its seed with the same node names (names order some directories, so they must replay too).
 */
public final class RandomIds {
  /** Ids from the JDK's {@link SecureRandom}: what every {@code ZkLocks} uses. */
  public static final RandomIds SECURE = new RandomIds(new SecureRandom());

  private static final char[] ALPHABET = "0123456789abcdefghijklmnopqrstuv".toCharArray();

  private final Random random;

  private RandomIds(Random random) {
    this.random = random;
  }

  /** Ids drawn from a {@link Random} seeded with {@code seed}: the same ids on every run. */
  public static RandomIds seeded(long seed) {
    return new RandomIds(new Random(seed));
  }

  /** Ids drawn from {@code random}, for tests that choose the draws. */
  static RandomIds of(Random random) {
    return new RandomIds(random);
  }

  /**
   * A fresh attempt id: {@link QueueNode#ATTEMPT_ID_LENGTH} characters of base 32, never ending in
   * {@code lock} or {@code latch}. In a plain name, {@code <kind>-<id>-<sequence>}, such an id
   * would be followed by {@code -}: Curator's recipes (which sort by the text after the last {@code
   * lock-} or {@code latch-}) and Go's client (which reads the sequence after the last {@code
   * lock-}) would read that one node's sequence and skip or fail on every other plain name, so that
   * a client of theirs on the path would wait for some of zklock's nodes and not for others ({@link
   * ClientOrder#view}). One draw in a million is drawn again.
   */
  public String attemptId() {
    while (true) {
      long bits = random.nextLong();
      char[] out = new char[QueueNode.ATTEMPT_ID_LENGTH];
      for (int i = 0; i < out.length; i++) {
        out[i] = ALPHABET[(int) (bits & 31)];
        bits >>>= 5;
      }
      String id = new String(out);
      if (!id.endsWith("lock") && !id.endsWith("latch")) {
        return id;
      }
    }
  }

  /**
   * A fresh attempt id for a node of {@code kind}: a UUID's text for the Curator-compatible kinds
   * (as Curator's protected names carry), a UUID's 32 hex digits for the kazoo-compatible kinds (as
   * kazoo's {@code uuid4().hex} prefix) and for {@link NodeKind#GO_LOCK} (as Go's guid), else
   * {@link #attemptId()}.
   */
  public String attemptId(NodeKind kind) {
    if (kind.kazoo() || kind == NodeKind.GO_LOCK) {
      return uuid().replace("-", "");
    }
    return kind.curator() ? uuid() : attemptId();
  }

  /** A fresh random (version 4) UUID's text, as {@link UUID#randomUUID()} makes. */
  public String uuid() {
    long hi = random.nextLong();
    long lo = random.nextLong();
    hi = (hi & ~0xF000L) | 0x4000L; // version 4
    lo = (lo & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L; // IETF variant
    return new UUID(hi, lo).toString();
  }
}
