package io.zklock.internal.rules;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

/**
 * One child of a lock directory, parsed from its name {@code <kind>-<attempt>-<sequence>}: for
 * example {@code m-0f3k9qv2x7ab-0000000017}. The attempt id is {@link #ATTEMPT_ID_LENGTH}
 * characters, random per request, so that a client can recognise its own node after a connection
 * loss. The sequence is the ten-digit suffix ZooKeeper appends, a signed 32-bit counter that wraps
 * to negative after 2^31 creations under one parent.
 *
 * <h2>The counter's overflow, as ZooKeeper really behaves</h2>
 *
 * ZooKeeper's documentation says the counter wraps to -2147483648. ZooKeeper 3.9's data tree,
 * however, only ever raises a parent's counter, so once a counter reaches 2147483647 it sticks
 * there: every later child gets the suffix {@code 2147483647} (a burst of creates may still see a
 * few negative values from the request pipeline). From then on the suffix says nothing about order.
 * So when a listing holds any sequence within {@link #OVERFLOW_MARGIN} of either end of the int
 * range, the recipes order the queue by each node's creation zxid ({@code czxid}) instead, read
 * with one {@code exists} per node: correct, and only paid by a directory that has seen two billion
 * requests without once being idle long enough for the server to reap it.
 *
 * <h2>Curator's names</h2>
 *
 * The Curator-compatible kinds ({@link NodeKind#curator()}) are named as Curator's recipes name
 * their protected nodes, {@code _c_<uuid>-<lock name><sequence>}, for example {@code
 * _c_0b3c…-lock-0000000017}: the uuid (36 characters) is the attempt id, Curator's way of finding
 * its node after a connection loss. Curator orders such nodes by the text after the lock name, the
 * ten-digit sequence: the same order as ours while the counter has not wrapped.
 *
 * <h2>kazoo's names</h2>
 *
 * The kazoo-compatible kinds ({@link NodeKind#kazoo()}) are named as Python kazoo's lock recipes
 * name theirs, {@code <id>__lock__<sequence>} and {@code <id>__rlock__<sequence>}: kazoo's id is
 * {@code uuid4().hex}, ours a UUID's 32 hex digits too. kazoo recognises a contender by its marker
 * followed by the sequence at the end of the name, whatever comes before, and orders contenders by
 * the sequence's text ({@link KazooOrder}); every name it recognises parses here as a kazoo kind.
 *
 * <h2>Go's names</h2>
 *
 * Go's zookeeper client ({@code go-zookeeper/zk}) names its lock's nodes {@code
 * _c_<guid>-lock-<sequence>}, the guid 32 lowercase hex digits: {@link NodeKind#GO_LOCK}, never
 * created by zklock, read so that the Curator-compatible mutex can queue beside Go's clients
 * ({@link ClientOrder}).
 */
public record QueueNode(String name, NodeKind kind, String attemptId, int sequence, long czxid) {

  /** Length of an attempt id. */
  public static final int ATTEMPT_ID_LENGTH = 12;

  /**
   * Queue order: by sequence, compared with wrap-around arithmetic. Sequence {@code a} comes before
   * {@code b} when {@code a - b}, computed in 32-bit two's complement, is negative. This is a total
   * order on any set of sequences spanning less than 2^31, which holds for the live children of one
   * directory (it would take 2^31 creations while the oldest waiter still waits).
   */
  public static final Comparator<QueueNode> ORDER =
      (a, b) -> {
        int c = Integer.compare(a.sequence - b.sequence, 0);
        return c != 0 ? c : a.name.compareTo(b.name);
      };

  /**
   * Sequences this close to either end of the int range mean the counter has (nearly) overflowed.
   */
  public static final int OVERFLOW_MARGIN = 1 << 24;

  /** Creation order, by zxid: always right, needs each node's {@code czxid}. */
  public static final Comparator<QueueNode> BY_CREATION =
      Comparator.comparingLong(QueueNode::czxid).thenComparing(QueueNode::name);

  /** A copy of this node that knows its creation zxid. */
  public QueueNode withCzxid(long zxid) {
    return new QueueNode(name, kind, attemptId, sequence, zxid);
  }

  /**
   * Whether the sequence suffixes of this queue cannot be trusted for order (see the class
   * comment): some sequence lies within {@link #OVERFLOW_MARGIN} of {@link Integer#MAX_VALUE} or
   * {@link Integer#MIN_VALUE}.
   */
  public static boolean nearOverflow(List<QueueNode> queue) {
    for (QueueNode n : queue) {
      if (n.sequence > Integer.MAX_VALUE - OVERFLOW_MARGIN
          || n.sequence < Integer.MIN_VALUE + OVERFLOW_MARGIN) {
        return true;
      }
    }
    return false;
  }

  /** Length of the attempt id of a Curator-compatible node: a {@link UUID}'s text. */
  public static final int CURATOR_ID_LENGTH = 36;

  /**
   * A fresh random attempt id for a node of {@code kind}: a {@link UUID} for the Curator-compatible
   * kinds (as Curator's protected names carry), else {@link #newAttemptId()} ({@link
   * RandomIds#SECURE}).
   */
  public static String newAttemptId(NodeKind kind) {
    return RandomIds.SECURE.attemptId(kind);
  }

  /** A fresh random attempt id ({@link RandomIds#SECURE}). */
  public static String newAttemptId() {
    return RandomIds.SECURE.attemptId();
  }

  /** The name prefix to create a node with, to which ZooKeeper appends the sequence. */
  public static String prefix(NodeKind kind, String attemptId) {
    if (kind.kazoo()) {
      return attemptId + kind.prefix();
    }
    if (kind.curator() || kind == NodeKind.GO_LOCK) {
      return NodeKind.CURATOR_PROTECTED + attemptId + "-" + kind.prefix();
    }
    return kind.prefix() + "-" + attemptId + "-";
  }

  /**
   * Parses a child name, or returns null if it is not a lock node of ours or of the Curator recipes
   * the compatible mode shares a queue with.
   */
  public static QueueNode parse(String name) {
    QueueNode kazoo = parseKazoo(name);
    if (kazoo != null) {
      return kazoo;
    }
    if (name.startsWith(NodeKind.CURATOR_PROTECTED)) {
      QueueNode go = parseGo(name);
      return go != null ? go : parseCurator(name);
    }
    int dash = name.indexOf('-');
    if (dash < 1) {
      return null;
    }
    NodeKind kind = NodeKind.ofPrefix(name.substring(0, dash));
    if (kind == NodeKind.SIMPLE) {
      return null; // the simple lock's one node, x-lock, never queues
    }
    int idEnd = dash + 1 + ATTEMPT_ID_LENGTH;
    if (kind == null || name.length() <= idEnd + 1 || name.charAt(idEnd) != '-') {
      return null;
    }
    String seq = name.substring(idEnd + 1);
    if (seq.length() < 10 || seq.length() > 11) {
      return null;
    }
    int sequence;
    try {
      sequence = Integer.parseInt(seq);
    } catch (NumberFormatException e) {
      return null;
    }
    return new QueueNode(name, kind, name.substring(dash + 1, idEnd), sequence, 0L);
  }

  /**
   * The participant id in the data of an election node of {@code kind}: the data itself for
   * Curator's {@code LeaderLatch} layout ({@link NodeKind#CURATOR_LATCH}), for a kazoo kind the
   * {@code participant} field of zklock's JSON or else the data (a kazoo client's identifier), else
   * the {@code participant} field of zklock's JSON; null if there is none.
   */
  public static String participantOf(NodeKind kind, byte[] data) {
    if (data == null) {
      return null;
    }
    String text = new String(data, java.nio.charset.StandardCharsets.UTF_8);
    if (kind.kazoo()) {
      // zklock's JSON, or a kazoo client's: the identifier given to its Election
      String field = Json.field(text, "participant");
      return field != null ? field : text.startsWith("{") ? null : text;
    }
    return kind.curator() ? text : Json.field(text, "participant");
  }

  /**
   * {@code <id>__lock__<sequence>} or {@code <id>__rlock__<sequence>}, or null: the marker right
   * before a sequence that ends the name (kazoo's contender pattern, {@link KazooOrder#contender}).
   * The sequence is read as ours is (ten characters, or eleven once negative), so that a name kazoo
   * itself skips (a sign and nine digits) is still known here, and refused ({@link
   * KazooOrder#agrees}).
   */
  private static QueueNode parseKazoo(String name) {
    int n = name.length();
    for (int len = 10; len <= 11; len++) {
      int at = n - len;
      if (at < 0) {
        return null;
      }
      for (NodeKind kind : KAZOO_KINDS) {
        String marker = kind.prefix();
        if (at >= marker.length() && name.startsWith(marker, at - marker.length())) {
          long sequence = sequence(name.substring(at));
          if (sequence != NO_SEQUENCE) {
            return new QueueNode(
                name, kind, name.substring(0, at - marker.length()), (int) sequence, 0L);
          }
        }
      }
    }
    return null;
  }

  private static final NodeKind[] KAZOO_KINDS = {NodeKind.KAZOO_LOCK, NodeKind.KAZOO_READ};

  /** Length of the guid of Go's client's names: 16 random bytes in lowercase hex. */
  public static final int GO_GUID_LENGTH = 32;

  /**
   * Go's client's {@code _c_<32 lowercase hex>-lock-<sequence>} ({@code
   * CreateProtectedEphemeralSequential} of {@code <path>/lock-}), or null.
   */
  private static QueueNode parseGo(String name) {
    int idStart = NodeKind.CURATOR_PROTECTED.length();
    int idEnd = idStart + GO_GUID_LENGTH;
    String marker = "-" + NodeKind.GO_LOCK.prefix();
    if (name.length() <= idEnd + marker.length() || !name.startsWith(marker, idEnd)) {
      return null;
    }
    for (int i = idStart; i < idEnd; i++) {
      char c = name.charAt(i);
      if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f')) {
        return null;
      }
    }
    long sequence = sequence(name.substring(idEnd + marker.length()));
    if (sequence == NO_SEQUENCE) {
      return null;
    }
    return new QueueNode(
        name, NodeKind.GO_LOCK, name.substring(idStart, idEnd), (int) sequence, 0L);
  }

  /** {@code _c_<uuid>-<lock name><sequence>}, or null. */
  private static QueueNode parseCurator(String name) {
    int idStart = NodeKind.CURATOR_PROTECTED.length();
    int idEnd = idStart + CURATOR_ID_LENGTH;
    if (name.length() <= idEnd + 1 || name.charAt(idEnd) != '-') {
      return null;
    }
    String rest = name.substring(idEnd + 1);
    for (NodeKind kind : NodeKind.values()) {
      if (kind.curator() && rest.startsWith(kind.prefix())) {
        long sequence = sequence(rest.substring(kind.prefix().length()));
        if (sequence == NO_SEQUENCE) {
          return null;
        }
        return new QueueNode(name, kind, name.substring(idStart, idEnd), (int) sequence, 0L);
      }
    }
    return null;
  }

  /** Returned by {@link #sequence(String)} when the text is not a sequence: out of int range. */
  private static final long NO_SEQUENCE = Long.MIN_VALUE;

  /** ZooKeeper's sequence suffix: ten digits, or eleven characters once it is negative. */
  private static long sequence(String seq) {
    if (seq.length() < 10 || seq.length() > 11) {
      return NO_SEQUENCE;
    }
    for (int i = 0; i < seq.length(); i++) {
      char c = seq.charAt(i);
      if (!(c >= '0' && c <= '9') && !(i == 0 && c == '-')) {
        return NO_SEQUENCE;
      }
    }
    try {
      return Integer.parseInt(seq);
    } catch (NumberFormatException e) {
      return NO_SEQUENCE;
    }
  }

  /** Parses and sorts the children of a lock directory into queue order, skipping foreign names. */
  public static List<QueueNode> queue(Collection<String> children) {
    List<QueueNode> out = new ArrayList<>(children.size());
    for (String child : children) {
      QueueNode n = parse(child);
      if (n != null) {
        out.add(n);
      }
    }
    out.sort(ORDER);
    return out;
  }

  /**
   * The index of the node named {@code name} in a queue, or -1: a binary search in a {@link
   * Listing} (parsed and sorted once, shared by many requests), else a scan.
   */
  public static int indexOf(List<QueueNode> queue, String name) {
    if (queue instanceof Listing listing) {
      return listing.indexOfName(name);
    }
    for (int i = 0; i < queue.size(); i++) {
      if (queue.get(i).name.equals(name)) {
        return i;
      }
    }
    return -1;
  }
}
