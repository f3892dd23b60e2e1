package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.internal.rules.ClientOrder.Client;
import io.zklock.internal.rules.ClientOrder.Mix;
import io.zklock.internal.rules.ClientOrder.View;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * {@link ClientOrder}, checked against each client's own algorithm, written out here from its
 * source, on names made as each client makes them:
 *
 * <ul>
 *   <li>Curator's {@code InterProcessMutex} ({@code LockInternals.getSortedChildren}, {@code
 *       StandardLockInternalsDriver.standardFixForSorting} and {@code getsTheLock}): the children
 *       sorted by the text after the last {@code lock-} (the whole name if none); it holds at index
 *       0, else watches the child just before its own;
 *   <li>kazoo's {@code Lock} ({@code kazoo/recipe/lock.py}, 2.9's {@code _get_predecessor}): the
 *       children matching {@code (?:__lock__[|<extra patterns>])(-?\d{10})$} whose matched text is
 *       below its own sequence's, sorted by that text; it waits for the last, holds if none;
 *   <li>Go's {@code Lock} ({@code go-zookeeper/zk lock.go}, {@code parseSeq} and {@code
 *       LockWithData}): {@link #goParseSeq} written out here, its loop in {@link ClientOrder#go};
 *   <li>zklock: its own code ({@link Listing}, {@link ForeignNode}, {@link KindMix}, {@link
 *       Ordering}).
 * </ul>
 */
class ClientOrderPropertiesTest {

  static String seq(int n) {
    return String.format(Locale.ENGLISH, "%010d", n);
  }

  private static String hex32(Random r) {
    byte[] b = new byte[16];
    r.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  /** A node as {@code client} names it, with sequence {@code n}. */
  static String name(Client client, Random r, int n) {
    switch (client) {
      case ZKLOCK_PLAIN:
        return QueueNode.prefix(NodeKind.MUTEX, RandomIds.seeded(r.nextLong()).attemptId())
            + seq(n);
      case ZKLOCK_CURATOR:
        return QueueNode.prefix(
                NodeKind.CURATOR_MUTEX,
                RandomIds.seeded(r.nextLong()).attemptId(NodeKind.CURATOR_MUTEX))
            + seq(n);
      case CURATOR_MUTEX:
        // Curator: ZKPaths.makePath(path, "lock-") created withProtection(): _c_<UUID>-lock-
        return "_c_" + new java.util.UUID(r.nextLong(), r.nextLong()) + "-lock-" + seq(n);
      case ZKLOCK_KAZOO:
        return QueueNode.prefix(
                NodeKind.KAZOO_LOCK, RandomIds.seeded(r.nextLong()).attemptId(NodeKind.KAZOO_LOCK))
            + seq(n);
      case KAZOO_LOCK:
      case KAZOO_LOCK_EXTRA:
        // kazoo: uuid.uuid4().hex + "__lock__"
        return hex32(r) + "__lock__" + seq(n);
      case GO_LOCK:
        // Go: CreateProtectedEphemeralSequential(path + "/lock-"): _c_ + fmt "%x" of 16 bytes +
        // -lock-
        return "_c_" + hex32(r) + "-lock-" + seq(n);
      default:
        throw new AssertionError(client);
    }
  }

  /** The zklock kind of a zklock client. */
  static NodeKind zklockKind(Client c) {
    switch (c) {
      case ZKLOCK_PLAIN:
        return NodeKind.MUTEX;
      case ZKLOCK_CURATOR:
        return NodeKind.CURATOR_MUTEX;
      case ZKLOCK_KAZOO:
        return NodeKind.KAZOO_LOCK;
      default:
        return null;
    }
  }

  // ---------------------------------------------------------------- the libraries' algorithms

  /** Curator's {@code standardFixForSorting(str, "lock-")}. */
  static String curatorKey(String str) {
    String lockName = "lock-";
    int index = str.lastIndexOf(lockName);
    if (index >= 0) {
      index = (index + lockName.length()) <= str.length() ? (index + lockName.length()) : 0;
      return str.substring(index);
    }
    return str;
  }

  /** Curator's mutex: the child it watches, or null if it holds. */
  static String curatorWatches(List<String> children, String own) {
    List<String> sorted = new ArrayList<>(children);
    sorted.sort(Comparator.comparing(ClientOrderPropertiesTest::curatorKey));
    int ourIndex = sorted.indexOf(own);
    return ourIndex < 1 ? null : sorted.get(ourIndex - 1);
  }

  /** kazoo 2.9's {@code Lock._get_predecessor}, with {@code extra} patterns. */
  static String kazooPredecessor(List<String> children, String own, boolean extra) {
    Pattern contenders =
        Pattern.compile("(?:" + (extra ? "__lock__|-lock-" : "__lock__") + ")(-?[0-9]{10})$");
    String ownSequence = own.substring(own.lastIndexOf("__lock__") + "__lock__".length());
    String best = null;
    String bestKey = null;
    for (String child : children) {
      Matcher m = contenders.matcher(child);
      if (m.find() && m.group(1).compareTo(ownSequence) < 0) {
        if (bestKey == null || m.group(1).compareTo(bestKey) > 0) {
          best = child;
          bestKey = m.group(1);
        }
      }
    }
    return best;
  }

  /**
   * go-zookeeper's {@code parseSeq}, as lock.go has it: {@code strings.Split(path, "lock-")}, if
   * one part {@code strings.Split(path, "__")}, then {@code strconv.Atoi} of the last part.
   */
  static long goParseSeq(String path) {
    String[] parts = path.split(Pattern.quote("lock-"), -1);
    if (parts.length == 1) {
      parts = path.split(Pattern.quote("__"), -1);
    }
    String last = parts[parts.length - 1];
    // strconv.Atoi: an optional sign, then one or more ASCII digits, in a 64-bit int
    if (!last.matches("[+-]?[0-9]+")) {
      return ClientOrder.NO_SEQUENCE;
    }
    try {
      return Long.parseLong(last);
    } catch (NumberFormatException e) {
      return ClientOrder.NO_SEQUENCE;
    }
  }

  /**
   * What client {@code c}, whose node is {@code own}, does on a listing of {@code children}, by its
   * own algorithm: {@code WAITS} (for anything), {@code IGNORES} (holds), {@code REFUSES}, {@code
   * FAILS}; and for WAITS, the node it waits for.
   */
  record Decision(View view, String waitsFor) {}

  static Decision decide(Client c, List<String> children, String own) {
    switch (c) {
      case CURATOR_MUTEX:
        {
          String w = curatorWatches(children, own);
          return new Decision(w == null ? View.IGNORES : View.WAITS, w);
        }
      case KAZOO_LOCK:
      case KAZOO_LOCK_EXTRA:
        {
          String w = kazooPredecessor(children, own, c == Client.KAZOO_LOCK_EXTRA);
          return new Decision(w == null ? View.IGNORES : View.WAITS, w);
        }
      case GO_LOCK:
        {
          ClientOrder.GoDecision d = ClientOrder.go(children, own);
          if (d.failsOn() != null) {
            return new Decision(View.FAILS, null);
          }
          return d.holds()
              ? new Decision(View.IGNORES, null)
              : new Decision(View.WAITS, d.waitFor());
        }
      default:
        {
          NodeKind kind = zklockKind(c);
          Listing listing = Listing.of(children);
          if (ForeignNode.firstCertain(listing.foreign()) != null
              || KindMix.conflict(kind, listing) != null) {
            return new Decision(View.REFUSES, null);
          }
          Ordering.Decision d =
              Ordering.forKind(kind).decide(listing, QueueNode.indexOf(listing, own));
          return d instanceof Ordering.Watch w
              ? new Decision(View.WAITS, w.node().name())
              : new Decision(View.IGNORES, null);
        }
    }
  }

  // ---------------------------------------------------------------- the properties

  @Property(tries = 3000)
  void goParseSeq_asWrittenInMain_isLockGosParseSeq(@ForAll("names") String name) {
    assertThat(ClientOrder.goSequence(name)).as(name).isEqualTo(goParseSeq(name));
  }

  @Provide
  Arbitrary<String> names() {
    Arbitrary<String> prefixes =
        Arbitraries.oneOf(
            Arbitraries.strings().ascii().ofMaxLength(20).filter(s -> s.indexOf('/') < 0),
            Arbitraries.of(
                "", "lock-", "lock", "__", "_c_x-lock-", "a__lock__", "m-0123456789ab-", "+", "-"));
    Arbitrary<String> suffixes =
        Arbitraries.oneOf(
            Arbitraries.integers().map(ClientOrderPropertiesTest::seq),
            Arbitraries.strings().numeric().ofMaxLength(22),
            Arbitraries.strings().ascii().ofMaxLength(5));
    return net.jqwik.api.Combinators.combine(prefixes, suffixes).as((p, s) -> p + s);
  }

  /**
   * The table: a client's node created after another's (a higher sequence) waits for it, ignores
   * it, refuses it or fails on it exactly as {@link ClientOrder#view} says, by the client's own
   * algorithm on the two names. One exception, as Curator's sort has it: a name Curator reads no
   * sequence from sorts by its whole text, so it is ahead of Curator's node only if that text sorts
   * before Curator's sequence (a kazoo id of eight leading zeros): it is ignored otherwise.
   */
  @Property(tries = 3000)
  void everyClientsView_ofAnEarlierNode_isWhatItsOwnAlgorithmDecides(
      @ForAll Client later,
      @ForAll Client earlier,
      @ForAll @IntRange(min = 0, max = 1_999_999_999) int first,
      @ForAll @IntRange(min = 1, max = 1000) int gap,
      @ForAll long seed) {
    Random r = new Random(seed);
    String before = name(earlier, r, first);
    String own = name(later, r, first + gap);
    Decision d = decide(later, List.of(before, own), own);
    View expected = ClientOrder.view(later, earlier);
    if (expected == View.IGNORES && later == Client.CURATOR_MUTEX) {
      boolean sortsAhead = curatorKey(before).compareTo(curatorKey(own)) < 0;
      assertThat(d.view())
          .as("%s over %s", own, before)
          .isEqualTo(sortsAhead ? View.WAITS : View.IGNORES);
      return;
    }
    assertThat(d.view())
        .as("%s (%s) over %s (%s)", own, later, before, earlier)
        .isEqualTo(expected);
    if (expected == View.WAITS) {
      assertThat(d.waitsFor()).isEqualTo(before);
    }
  }

  /**
   * In a directory of clients that pairwise share a queue ({@link Mix#SHARED}), every node's own
   * algorithm, on the same listing, agrees: the lowest sequence holds, every other waits for the
   * node just before it. So they never hold at once, and go in arrival order.
   */
  @Property(tries = 1000)
  void clientsThatShare_agreeOnOneQueue(
      @ForAll("sharingSets") Set<Client> clients,
      @ForAll @Size(min = 1, max = 8) List<@IntRange(min = 0, max = 20) Integer> picks,
      @ForAll @IntRange(min = 0, max = 1_999_000_000) int start,
      @ForAll long seed) {
    List<Client> pool = new ArrayList<>(clients);
    for (Client a : pool) {
      for (Client b : pool) {
        assertThat(ClientOrder.mix(a, b)).isEqualTo(Mix.SHARED);
      }
    }
    Random r = new Random(seed);
    List<String> names = new ArrayList<>();
    List<Client> of = new ArrayList<>();
    int s = start;
    for (int i = 0; i < picks.size(); i++) {
      Client c = pool.get(picks.get(i) % pool.size());
      s += 1 + r.nextInt(3);
      names.add(name(c, r, s));
      of.add(c);
    }
    List<String> shuffled = new ArrayList<>(names);
    java.util.Collections.shuffle(shuffled, r);
    for (int i = 0; i < names.size(); i++) {
      Decision d = decide(of.get(i), shuffled, names.get(i));
      if (i == 0) {
        assertThat(d.view()).as("the first holds: %s", names).isEqualTo(View.IGNORES);
      } else {
        assertThat(d.view()).isEqualTo(View.WAITS);
        assertThat(d.waitsFor())
            .as("%s waits for the one before it", names.get(i))
            .isEqualTo(names.get(i - 1));
      }
    }
  }

  @Provide
  Arbitrary<Set<Client>> sharingSets() {
    return Arbitraries.of(
        EnumSet.of(Client.ZKLOCK_CURATOR, Client.CURATOR_MUTEX, Client.GO_LOCK),
        EnumSet.of(Client.GO_LOCK, Client.KAZOO_LOCK_EXTRA),
        EnumSet.of(Client.ZKLOCK_KAZOO, Client.KAZOO_LOCK_EXTRA),
        EnumSet.of(Client.ZKLOCK_KAZOO, Client.KAZOO_LOCK, Client.KAZOO_LOCK_EXTRA),
        EnumSet.of(Client.ZKLOCK_PLAIN),
        EnumSet.of(Client.ZKLOCK_CURATOR, Client.GO_LOCK));
  }

  @Example
  void whoSharesWithWhom() {
    // Go's Lock beside zklock: one queue with the Curator-compatible mutex, apart from the others
    assertThat(ClientOrder.mix(Client.ZKLOCK_CURATOR, Client.GO_LOCK)).isEqualTo(Mix.SHARED);
    assertThat(ClientOrder.mix(Client.ZKLOCK_PLAIN, Client.GO_LOCK)).isEqualTo(Mix.APART);
    assertThat(ClientOrder.mix(Client.ZKLOCK_KAZOO, Client.GO_LOCK)).isEqualTo(Mix.APART);
    // beside the other libraries
    assertThat(ClientOrder.mix(Client.CURATOR_MUTEX, Client.GO_LOCK)).isEqualTo(Mix.SHARED);
    assertThat(ClientOrder.mix(Client.KAZOO_LOCK, Client.GO_LOCK)).isEqualTo(Mix.UNSAFE);
    assertThat(ClientOrder.mix(Client.KAZOO_LOCK_EXTRA, Client.GO_LOCK)).isEqualTo(Mix.SHARED);
    assertThat(ClientOrder.mix(Client.KAZOO_LOCK_EXTRA, Client.ZKLOCK_CURATOR))
        .as("kazoo with the pattern waits for zklock's, zklock refuses kazoo's")
        .isEqualTo(Mix.APART);
    assertThat(ClientOrder.mix(Client.ZKLOCK_PLAIN, Client.CURATOR_MUTEX)).isEqualTo(Mix.UNSAFE);
    assertThat(ClientOrder.mix(Client.ZKLOCK_PLAIN, Client.KAZOO_LOCK)).isEqualTo(Mix.UNSAFE);
    assertThat(ClientOrder.mix(Client.ZKLOCK_KAZOO, Client.CURATOR_MUTEX)).isEqualTo(Mix.UNSAFE);
    // each zklock mode shares a queue with exactly the clients of its names' family
    for (Client a : Client.values()) {
      for (Client b : Client.values()) {
        assertThat(ClientOrder.mix(a, b)).isEqualTo(ClientOrder.mix(b, a));
      }
    }
  }

  /**
   * zklock shares a queue exactly where {@link KindMix} lets its kinds share a directory: a zklock
   * mode waits for another client's nodes iff their kind is of its family, and refuses them
   * otherwise.
   */
  @Example
  void zklocksSide_isKindMix() {
    for (Client mode : List.of(Client.ZKLOCK_PLAIN, Client.ZKLOCK_CURATOR, Client.ZKLOCK_KAZOO)) {
      for (Client other : Client.values()) {
        String n = name(other, new Random(other.ordinal()), 5);
        QueueNode q = QueueNode.parse(n);
        boolean sameFamily = q != null && KindMix.compatible(zklockKind(mode), q.kind());
        assertThat(ClientOrder.view(mode, other))
            .as("%s over %s", mode, other)
            .isEqualTo(sameFamily ? View.WAITS : View.REFUSES);
      }
    }
  }

  // ---------------------------------------------------------------- the next waiter's grant

  /** Draws of a plain attempt id: any, or one that would end in {@code lock} or {@code latch}. */
  @Provide
  Arbitrary<Long> idDraws() {
    long lock = (21L << 40) | (24L << 45) | (12L << 50) | (20L << 55);
    long latch = (21L << 35) | (10L << 40) | (29L << 45) | (12L << 50) | (17L << 55);
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(6, Arbitraries.longs()),
        net.jqwik.api.Tuple.of(2, Arbitraries.of(lock, latch)),
        net.jqwik.api.Tuple.of(2, Arbitraries.longs().map(l -> (l & ((1L << 40) - 1)) | lock)));
  }

  /** A plain zklock node whose attempt id comes from {@code draw}, then random draws. */
  private static String plainName(long draw, Random r, int n) {
    boolean[] first = {true};
    RandomIds ids =
        RandomIds.of(
            new Random(r.nextLong()) {
              @Override
              public long nextLong() {
                if (first[0]) {
                  first[0] = false;
                  return draw;
                }
                return super.nextLong();
              }
            });
    return QueueNode.prefix(NodeKind.MUTEX, ids.attemptId()) + seq(n);
  }

  /**
   * The waiter next in line (W) is granted by its predecessor's deletion without listing again: it
   * does not see a node another client (F) made after its last listing. That never makes a holder
   * beside W of a client that had not been holding beside the head (H) since it joined: F's own
   * algorithm on the directory it joined ([H, W, F]) holds at once, or waits, fails or refuses on
   * the directory W is granted in ([W, F]) too: in the plain mode, the one that grants so, every
   * client reads all of zklock's names alike, whatever their attempt ids.
   */
  @Property(tries = 3000)
  void aClientThatJoinsBehindTheNextWaiter_holdsBesideIt_onlyIfItHeldBesideTheHead(
      @ForAll("modes") Client mode,
      @ForAll Client head,
      @ForAll Client joining,
      @ForAll("idDraws") long headId,
      @ForAll("idDraws") long waiterId,
      @ForAll @IntRange(min = 0, max = 1_999_000_000) int start,
      @ForAll long seed) {
    Random r = new Random(seed);
    if (ClientOrder.view(mode, head) != View.WAITS) {
      return; // the head is of a client the mode does not queue behind: the waiter refused it
    }
    String h = head == Client.ZKLOCK_PLAIN ? plainName(headId, r, start) : name(head, r, start);
    String w =
        mode == Client.ZKLOCK_PLAIN ? plainName(waiterId, r, start + 1) : name(mode, r, start + 1);
    String f = name(joining, r, start + 2);
    View atJoin = decide(joining, List.of(h, w, f), f).view();
    View atGrant = decide(joining, List.of(w, f), f).view();
    if (atGrant == View.IGNORES) {
      assertThat(atJoin)
          .as("%s joined behind head %s and waiter %s: it holds beside the waiter's grant", f, h, w)
          .isEqualTo(View.IGNORES);
    }
    assertThat(ClientOrder.seenAlike(joining, head, mode)).isTrue();
  }

  /**
   * The modes whose waiter next in line is granted without a listing: the plain mode alone. (The
   * compatible modes list before the grant, and need to: Curator sorts a name without {@code lock-}
   * by its whole text, so a kazoo-named node whose 32 hex digits start with digits that sort before
   * Curator's own sequence is waited for, and another is not.)
   */
  @Provide
  Arbitrary<Client> modes() {
    return Arbitraries.of(Client.ZKLOCK_PLAIN);
  }

  /**
   * Why the compatible modes list before the grant: Curator waits for one kazoo-named node (whose
   * id sorts before its sequence) and not for another, so a Curator client that joins behind a
   * kazoo-compatible head and waiter waits for the head and then holds beside the waiter.
   */
  @Example
  void inTheKazooCompatibleMode_curatorMayWaitForTheHeadAndNotForTheNextWaiter() {
    String head = "006aab3be02a95eebaa9b8bcfd0ddf56__lock__0069999998";
    String waiter = "33d6db541a0d4ad6b307cea5fbb348ea__lock__0069999999";
    String curator = "_c_3c9c88ee-6610-2788-99ff-f7a059c06145-lock-0070000000";
    assertThat(decide(Client.CURATOR_MUTEX, List.of(head, waiter, curator), curator).view())
        .isEqualTo(View.WAITS);
    assertThat(decide(Client.CURATOR_MUTEX, List.of(waiter, curator), curator).view())
        .isEqualTo(View.IGNORES);
  }
}
