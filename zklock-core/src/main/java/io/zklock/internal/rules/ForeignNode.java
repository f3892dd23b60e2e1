package io.zklock.internal.rules;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A child of a lock directory that looks like another program's lock node: a pure rule on its name,
 * read on the listing a request already has.
 *
 * <p>Other ZooKeeper lock libraries order a directory by their own names and skip (or sort last)
 * every name they do not know: Curator sorts a name without its lock name after every sequence.
 * (Python kazoo's names, {@code <id>__lock__<seq>} and {@code <id>__rlock__<seq>}, are queue kinds
 * of their own, {@link NodeKind#KAZOO_LOCK} and {@link NodeKind#KAZOO_READ}, and so are Go's
 * client's, {@code _c_<32 hex>-lock-<seq>}, {@link NodeKind#GO_LOCK}: refused beside zklock's other
 * kinds by {@link KindMix}, shared with in the compatible modes.) So a client of another library
 * that joins a directory where zklock's requests queue sees no one ahead of it and holds at once,
 * beside zklock's holder. zklock cannot make it wait; what it can do is never grant beside such a
 * node: a request that finds one in its listing refuses, as it refuses a Curator recipe it cannot
 * share a queue with ({@link KindMix}).
 *
 * <p>A child is recognised ({@link #classify} returns null) when it is one of zklock's own: a queue
 * node of any {@link NodeKind} (the Curator-compatible names included), the simple lock's {@code
 * x-lock}, a condition's waiter ({@code cv-...}), kazoo's names, or a name that does not end in a
 * sequence suffix at all ({@code hold-off}, a semaphore's {@code leases} and {@code queue}, the
 * directory of a lock whose name is longer: none of them is a lock node). Every other name that
 * ends in ZooKeeper's sequence suffix (ten digits, or a sign and nine or ten after the counter
 * wrapped) is foreign, with the library that likely made it. One such name is ambiguous: a longer
 * lock name can end in ten digits too ({@code orders/0000000042} is the directory {@code
 * 0000000042} under {@code orders}). Names that no known library makes are therefore {@link
 * #certain() uncertain}: one read of the node's stat settles them ({@link #ephemeral}), since a
 * lock node is ephemeral and a lock's directory never is.
 *
 * @param name the child's name
 * @param library the library that likely made it
 * @param sequence the sequence ZooKeeper appended, as its library reads it
 * @param certain false when the name alone cannot tell a lock node from a directory
 */
public record ForeignNode(String name, Library library, int sequence, boolean certain) {

  /** The libraries whose names are told apart, each with the words a message uses for it. */
  public enum Library {
    /**
     * A protected name ({@code _c_<uuid>-...}) of a Curator recipe zklock has no counterpart for.
     */
    CURATOR("curator", "a Curator recipe that has no Curator-compatible counterpart in zklock"),
    /** ZooKeeper's own lock recipe ({@code zookeeper-recipes-lock}): {@code x-<session>-<seq>}. */
    ZOOKEEPER_RECIPES("zookeeper-recipes", "ZooKeeper's WriteLock recipe (zookeeper-recipes-lock)"),
    /** zklock's layout with a kind this version does not know: a newer (or older) zklock. */
    ZKLOCK_OTHER(
        "zklock-other", "another version of zklock (a node kind this version does not know)"),
    /** A sequential node of any other naming. */
    UNKNOWN("unknown", "a library zklock does not know");

    private final String label;
    private final String words;

    Library(String label, String words) {
      this.label = label;
      this.words = words;
    }

    /** A short word for {@code zklock ls} and {@code LockNode#data()}, such as {@code kazoo}. */
    public String label() {
      return label;
    }

    /** What made such a node, in words. */
    public String words() {
      return words;
    }
  }

  /**
   * What {@code name}, a child of a lock directory, is: null when it is zklock's own or no lock
   * node at all (see the class comment), else the foreign node it looks like.
   */
  public static ForeignNode classify(String name) {
    int suffix = suffixLength(name);
    if (suffix == 0) {
      return null; // no sequence: a directory, a mark, the simple lock's x-lock
    }
    if (QueueNode.parse(name) != null || ConditionRule.parse(name) != null) {
      return null; // ours
    }
    if (name.startsWith(NodeKind.CURATOR_PROTECTED)) {
      return new ForeignNode(name, Library.CURATOR, sequenceOfSuffix(name, suffix), true);
    }
    int recipe = zookeeperRecipe(name);
    if (recipe >= 0) {
      return new ForeignNode(name, Library.ZOOKEEPER_RECIPES, sequenceAt(name, recipe), true);
    }
    int layout = zklockLayout(name);
    if (layout >= 0) {
      return new ForeignNode(name, Library.ZKLOCK_OTHER, sequenceAt(name, layout), true);
    }
    return new ForeignNode(name, Library.UNKNOWN, sequenceOfSuffix(name, suffix), false);
  }

  /**
   * {@code at + length} if a marker of {@code length} found at {@code at} is followed by a sequence
   * and nothing else; else -1.
   */
  private static int after(String name, int at, int length) {
    if (at < 0) {
      return -1;
    }
    int from = at + length;
    return isSequence(name, from) ? from : -1;
  }

  /**
   * Whether a node whose stat shows {@code ephemeralOwner} is a lock node (an ephemeral node of a
   * session) rather than a directory: not persistent (0), not a container ({@link Long#MIN_VALUE}),
   * not a node with a time to live (the owner's top byte {@code 0xff}).
   */
  public static boolean ephemeral(long ephemeralOwner) {
    return ephemeralOwner != 0L
        && ephemeralOwner != Long.MIN_VALUE
        && (ephemeralOwner >>> 56) != 0xffL;
  }

  /** The first of {@code foreign} that its name alone proves foreign, or null. */
  public static ForeignNode firstCertain(Collection<ForeignNode> foreign) {
    for (ForeignNode f : foreign) {
      if (f.certain) {
        return f;
      }
    }
    return null;
  }

  /**
   * The length of ZooKeeper's sequence suffix at the end of {@code name} ({@code "%010d"} of a
   * signed 32-bit counter): 10 for ten digits or a sign and nine digits, 11 for a sign and ten
   * digits (a counter down to -2147483648); 0 if the name has none.
   */
  static int suffixLength(String name) {
    int n = name.length();
    if (n < 10) {
      return 0;
    }
    int digits = 0;
    for (int i = n - 1; i >= 0 && digits < 10 && isDigit(name.charAt(i)); i--) {
      digits++;
    }
    if (digits == 10) {
      long v = Long.parseLong(name.substring(n - 10));
      if (v <= Integer.MAX_VALUE) {
        return 10;
      }
      // beyond the positive range: only the sign before it makes it a (wrapped) sequence
      return n >= 11 && name.charAt(n - 11) == '-' && v <= 1L + Integer.MAX_VALUE ? 11 : 0;
    }
    if (digits == 9 && n >= 10 && name.charAt(n - 10) == '-') {
      return 10;
    }
    return 0;
  }

  /**
   * Whether {@code name} from {@code from} to its end is exactly a sequence as ZooKeeper writes it:
   * ten digits up to {@link Integer#MAX_VALUE}, or a sign and nine or ten digits down to {@link
   * Integer#MIN_VALUE}.
   */
  static boolean isSequence(String name, int from) {
    int len = name.length() - from;
    if (len < 10 || len > 11) {
      return false;
    }
    boolean negative = name.charAt(from) == '-';
    if (!negative && len != 10) {
      return false;
    }
    for (int i = from + (negative ? 1 : 0); i < name.length(); i++) {
      if (!isDigit(name.charAt(i))) {
        return false;
      }
    }
    long v = Long.parseLong(name.substring(from));
    return v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE;
  }

  /** The sequence from {@code from} to the end, which {@link #isSequence} accepted. */
  private static int sequenceAt(String name, int from) {
    return Integer.parseInt(name.substring(from));
  }

  /** The sequence of the last {@code suffix} characters ({@link #suffixLength}). */
  private static int sequenceOfSuffix(String name, int suffix) {
    return (int) Long.parseLong(name.substring(name.length() - suffix));
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /**
   * ZooKeeper's WriteLock recipe, {@code x-<session id>-<sequence>} (a session id may be negative):
   * where the sequence starts, or -1.
   */
  private static int zookeeperRecipe(String name) {
    if (!name.startsWith("x-")) {
      return -1;
    }
    int i = 2;
    if (i < name.length() && name.charAt(i) == '-') {
      i++;
    }
    int digits = i;
    while (i < name.length() && isDigit(name.charAt(i))) {
      i++;
    }
    if (i == digits || i >= name.length() || name.charAt(i) != '-') {
      return -1;
    }
    return after(name, i, 1);
  }

  /**
   * zklock's layout, {@code <kind>-<attempt id>-<sequence>}, with a kind of one to three lowercase
   * letters this version does not know: where the sequence starts, or -1.
   */
  private static int zklockLayout(String name) {
    int dash = name.indexOf('-');
    int idEnd = dash + 1 + QueueNode.ATTEMPT_ID_LENGTH;
    if (dash < 1 || dash > 3 || name.length() <= idEnd || name.charAt(idEnd) != '-') {
      return -1;
    }
    for (int i = 0; i < dash; i++) {
      char c = name.charAt(i);
      if (c < 'a' || c > 'z') {
        return -1;
      }
    }
    for (int i = dash + 1; i < idEnd; i++) {
      char c = name.charAt(i);
      if (!isDigit(c) && !(c >= 'a' && c <= 'v')) {
        return -1;
      }
    }
    return after(name, idEnd, 1);
  }

  // ---------------------------------------------------------------- who likely holds

  /**
   * Which of {@code foreign} (nodes proven foreign) likely hold, each by its own library's rule
   * among the nodes of that library alone (the others it does not see): the lowest sequence holds.
   * A display for {@code inspect}: zklock never decides on it.
   */
  public static Set<String> likelyHolders(Collection<ForeignNode> foreign) {
    Map<Library, List<ForeignNode>> byLibrary = new TreeMap<>();
    for (ForeignNode f : foreign) {
      byLibrary.computeIfAbsent(f.library, l -> new ArrayList<>()).add(f);
    }
    Set<String> holders = new HashSet<>();
    for (List<ForeignNode> nodes : byLibrary.values()) {
      nodes.sort(Comparator.comparingInt(ForeignNode::sequence).thenComparing(ForeignNode::name));
      holders.add(nodes.get(0).name);
    }
    return holders;
  }

  // ---------------------------------------------------------------- the refusal

  /**
   * The message of a refusal: the directory, what our request is, the node found and what likely
   * made it, and where to read more.
   */
  public static String refusal(String dir, NodeKind ours, ForeignNode found) {
    String what = ours.curator() ? "Curator-compatible " + ours.label() : ours.label();
    return "refusing to queue "
        + ("aeiou".indexOf(what.charAt(0)) >= 0 ? "an " : "a ")
        + what
        + " request in "
        + dir
        + ": it holds "
        + found.name
        + ", a lock node zklock does not recognise, likely made by "
        + found.library.words
        + ". That library does not see zklock's nodes as queued ahead of its own, so the two"
        + " would hold at once; use one library per path, see docs/guarantees.md, \"Nodes of"
        + " other libraries\"";
  }
}
