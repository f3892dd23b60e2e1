package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
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

/**
 * zklock's kazoo-compatible kinds ({@link NodeKind#KAZOO_LOCK}, {@link NodeKind#KAZOO_READ}) decide
 * as Python kazoo's recipes do, node for node, on every directory where {@link KazooOrder#agrees}.
 * kazoo's rules are written out here from its source ({@code kazoo/recipe/lock.py}): a contender is
 * a child matching {@code (?:<exclude names>)(-?\d{10})$} ({@code re.search}); {@code Lock} has the
 * node name and exclude name {@code __lock__}, {@code WriteLock} the node name {@code __lock__} and
 * the exclude names {@code __lock__} and {@code __rlock__}, {@code ReadLock} the node name {@code
 * __rlock__} and the exclude name {@code __lock__}; {@code Election} is a {@code Lock}. From 2.9
 * on, {@code _get_predecessor} keeps the contenders whose matched text is less than its own node's
 * sequence text, sorts them by that text (Python compares strings by code point) and waits for the
 * last; kazoo 2.8 (Debian's python3-kazoo) sorts every contender and walks to its own match, which
 * for a {@code ReadLock} (whose own node is no contender of its pattern) is never found, so it
 * waits for the last {@code __lock__} node of the whole directory.
 */
class KazooOrderPropertiesTest {

  /** kazoo's three lock classes: the node name and the exclude names. */
  enum Recipe {
    LOCK("__lock__", "__lock__"),
    WRITE_LOCK("__lock__", "__lock__", "__rlock__"),
    READ_LOCK("__rlock__", "__lock__");

    final String nodeName;
    final Pattern contenders;

    Recipe(String nodeName, String... exclude) {
      this.nodeName = nodeName;
      this.contenders = Pattern.compile("(?:" + String.join("|", exclude) + ")(-?[0-9]{10})$");
    }
  }

  /** Every contender any of kazoo's lock classes sees ({@code contenders()} of a WriteLock). */
  static final Pattern ANY = Recipe.WRITE_LOCK.contenders;

  /** ZooKeeper's sequence suffix: {@code String.format(Locale.ENGLISH, "%010d", cversion)}. */
  static String seq(int n) {
    return String.format(Locale.ENGLISH, "%010d", n);
  }

  /** kazoo's own name: {@code uuid.uuid4().hex + _NODE_NAME}, then the sequence. */
  static String kazooName(Random r, Recipe recipe, int n) {
    byte[] b = new byte[16];
    r.nextBytes(b);
    return HexFormat.of().formatHex(b) + recipe.nodeName + seq(n);
  }

  /** zklock's name for a kazoo-compatible kind. */
  static String zklockName(NodeKind kind, int n) {
    return QueueNode.prefix(kind, QueueNode.newAttemptId(kind)) + seq(n);
  }

  /** A child that matched a recipe's pattern, and the text it matched (Python's match object). */
  record Match(String string, String group1) {}

  private static Match match(Recipe recipe, String child) {
    Matcher m = recipe.contenders.matcher(child);
    return m.find() ? new Match(child, m.group(1)) : null;
  }

  /** kazoo 2.9+'s {@code Lock._get_predecessor}: the node's predecessor, or null. */
  static String predecessor(List<String> children, String node, Recipe recipe) {
    // node[len(self.prefix):], the prefix being uuid4().hex + _NODE_NAME
    String nodeSequence =
        node.substring(node.lastIndexOf(recipe.nodeName) + recipe.nodeName.length());
    List<Match> matches = new ArrayList<>();
    for (String child : children) {
      Match m = match(recipe, child);
      if (m != null && m.group1.compareTo(nodeSequence) < 0) {
        matches.add(m);
      }
    }
    if (matches.isEmpty()) {
      return null;
    }
    matches.sort(Comparator.comparing(Match::group1));
    return matches.get(matches.size() - 1).string;
  }

  /** kazoo 2.8's {@code Lock._get_predecessor}. */
  static String predecessor28(List<String> children, String node, Recipe recipe) {
    List<Match> matches = new ArrayList<>();
    Match self = null;
    for (String child : children) {
      Match m = match(recipe, child);
      if (m != null) {
        matches.add(m);
      }
      if (child.equals(node)) {
        self = m; // None for a ReadLock's own node: no __lock__ in its name
      }
    }
    matches.sort(Comparator.comparing(Match::group1));
    String predecessor = null;
    for (Match m : matches) {
      if (m == self) {
        break;
      }
      predecessor = m.string;
    }
    return predecessor;
  }

  /** kazoo's {@code contenders()} order: every contender, by the matched text. */
  static List<String> kazooOrder(List<String> children) {
    List<String> out = new ArrayList<>();
    for (String c : children) {
      if (ANY.matcher(c).find()) {
        out.add(c);
      }
    }
    out.sort(Comparator.comparing(c -> kazooKey(c)));
    return out;
  }

  private static String kazooKey(String name) {
    Matcher m = ANY.matcher(name);
    m.find();
    return m.group(1);
  }

  // ---------------------------------------------------------------- names

  @Property(tries = 1000)
  void kazoosContenders_parseAsKazooKinds_withTheSequenceKazooReads(
      @ForAll boolean reader, @ForAll @IntRange(min = 0) int n, @ForAll long seed) {
    String name = kazooName(new Random(seed), reader ? Recipe.READ_LOCK : Recipe.LOCK, n);
    QueueNode q = QueueNode.parse(name);
    assertThat(q.kind()).isEqualTo(reader ? NodeKind.KAZOO_READ : NodeKind.KAZOO_LOCK);
    Matcher m = ANY.matcher(name);
    assertThat(m.find()).isTrue();
    assertThat(Integer.parseInt(m.group(1))).isEqualTo(q.sequence()).isEqualTo(n);
    assertThat(ForeignNode.classify(name)).isNull();
  }

  @Property(tries = 1000)
  void zklocksCompatibleNames_areKazooContenders_andItsOtherNamesAreNot(
      @ForAll NodeKind kind, @ForAll @IntRange(min = 0) int n) {
    if (kind == NodeKind.SIMPLE || kind == NodeKind.KAZOO_LEASE) {
      return; // not queue nodes (a kazoo semaphore's lease is a bare id, no sequence)
    }
    String name = zklockName(kind, n);
    Matcher m = ANY.matcher(name);
    assertThat(m.find()).as("kazoo sees %s", name).isEqualTo(kind.kazoo());
    if (kind.kazoo()) {
      assertThat(m.group(1)).isEqualTo(seq(n));
      QueueNode q = QueueNode.parse(name);
      assertThat(q.kind()).isEqualTo(kind);
      assertThat(name).startsWith(q.attemptId()).hasSize(32 + kind.prefix().length() + 10);
    }
  }

  /** Any prefix a program might give a sequential node. */
  @Provide
  Arbitrary<String> prefixes() {
    return Arbitraries.oneOf(
        Arbitraries.strings().withChars("abcdef_-lockr0123456789").ofMaxLength(24),
        Arbitraries.strings().ascii().ofMaxLength(30).filter(s -> s.indexOf('/') < 0),
        Arbitraries.of("", "__lock__", "__rlock__", "x__lock__", "__lock__-", "_c_a-lock-"));
  }

  @Property(tries = 3000)
  void everyNameKazooCountsAsAContender_isAKazooKind_withItsSequence(
      @ForAll("prefixes") String prefix, @ForAll int n) {
    String name = prefix + seq(n);
    Matcher m = ANY.matcher(name);
    QueueNode q = QueueNode.parse(name);
    if (m.find()) {
      assertThat(q).as(name).isNotNull();
      assertThat(q.kind().kazoo()).as(name).isTrue();
      assertThat(q.sequence()).isEqualTo(Integer.parseInt(m.group(1)));
      assertThat(q.kind())
          .isEqualTo(
              name.startsWith("__rlock__", m.start()) ? NodeKind.KAZOO_READ : NodeKind.KAZOO_LOCK);
    } else if (q != null && q.kind().kazoo()) {
      // kazoo skips it: only a sign and nine digits, which zklock refuses to queue beside
      assertThat(q.sequence()).as(name).isNegative();
      assertThat(KazooOrder.agrees(List.of(q))).isFalse();
    }
  }

  @Property(tries = 500)
  void goReadsTheSequence_ofKazoosNames_andZklocksCompatibleOnes(
      @ForAll boolean reader, @ForAll boolean byKazoo, @ForAll int n, @ForAll long seed) {
    // go-zookeeper's parseSeq splits at "lock-", else at "__": it sees kazoo's nodes, and the
    // kazoo-compatible mode's, as contenders with their own sequence (zklock refuses Go's nodes)
    String name =
        byKazoo
            ? kazooName(new Random(seed), reader ? Recipe.READ_LOCK : Recipe.LOCK, n)
            : zklockName(reader ? NodeKind.KAZOO_READ : NodeKind.KAZOO_LOCK, n);
    assertThat(ForeignNodePropertiesTest.goParseSeq(name))
        .isEqualTo(QueueNode.parse(name).sequence())
        .isEqualTo(n);
  }

  // ---------------------------------------------------------------- decisions

  /** One child of a random kazoo-family directory, and who made it. */
  record Child(String name, Recipe recipe, boolean byKazoo) {}

  /**
   * A directory of {@code count} nodes with increasing sequences from {@code start}, each a reader
   * or a writer, made by kazoo or by zklock; kazoo's writers are {@code WriteLock}s, or {@code
   * Lock}s when {@code plainLocks} and there is no reader (kazoo's {@code Lock} does not see
   * readers: beside them it is kazoo's own misuse, not a mix with zklock).
   */
  static List<Child> directory(Random r, int count, int start, boolean plainLocks) {
    List<Child> out = new ArrayList<>();
    boolean readers = !plainLocks && r.nextBoolean();
    int s = start;
    for (int i = 0; i < count; i++) {
      boolean reader = readers && r.nextInt(3) == 0;
      boolean byKazoo = r.nextBoolean();
      Recipe recipe = reader ? Recipe.READ_LOCK : plainLocks ? Recipe.LOCK : Recipe.WRITE_LOCK;
      String name =
          byKazoo
              ? kazooName(r, recipe, s)
              : zklockName(reader ? NodeKind.KAZOO_READ : NodeKind.KAZOO_LOCK, s);
      out.add(new Child(name, recipe, byKazoo));
      s += 1 + r.nextInt(3); // other directories' creations, failed creates: gaps
    }
    return out;
  }

  private static List<String> names(List<Child> dir, Random r) {
    List<String> names = new ArrayList<>();
    for (Child c : dir) {
      names.add(c.name);
    }
    Collections.shuffle(names, r); // getChildren's order is the server's hash order
    return names;
  }

  @Property(tries = 1000)
  void everyNode_holdsAndWatches_asKazooDecides(
      @ForAll @IntRange(min = 1, max = 12) int count,
      @ForAll @IntRange(min = 0, max = 2_000_000_000) int start,
      @ForAll boolean plainLocks,
      @ForAll long seed) {
    Random r = new Random(seed);
    List<Child> dir = directory(r, count, start, plainLocks);
    List<String> children = names(dir, r);
    Listing listing = Listing.of(children);
    assertThat(listing.foreign()).isEmpty();
    assertThat(KazooOrder.agrees(listing)).isTrue();
    assertThat(listing.stream().map(QueueNode::name).toList())
        .as("zklock's queue order is kazoo's contenders() order")
        .isEqualTo(kazooOrder(children));
    for (Child c : dir) {
      int index = listing.indexOfName(c.name);
      Ordering.Decision ours = Ordering.forKind(listing.get(index).kind()).decide(listing, index);
      String theirs = predecessor(children, c.name, c.recipe);
      assertThat(ours instanceof Ordering.Hold).as("%s holds", c).isEqualTo(theirs == null);
      if (ours instanceof Ordering.Watch w) {
        assertThat(w.node().name()).as("%s waits for", c).isEqualTo(theirs);
      }
    }
  }

  /** Whether a node of this recipe excludes the others. */
  private static boolean exclusive(Recipe recipe) {
    return recipe != Recipe.READ_LOCK;
  }

  @Property(tries = 1000)
  void zklockAndKazooClients_neverHoldAtOnce_withKazoo28sReadersToo(
      @ForAll @IntRange(min = 1, max = 12) int count,
      @ForAll @IntRange(min = 0, max = 2_000_000_000) int start,
      @ForAll boolean plainLocks,
      @ForAll boolean kazoo28,
      @ForAll long seed) {
    Random r = new Random(seed);
    List<Child> dir = directory(r, count, start, plainLocks);
    List<String> children = names(dir, r);
    Listing listing = Listing.of(children);
    Set<Child> holders = new HashSet<>();
    for (Child c : dir) {
      boolean holds;
      if (c.byKazoo) {
        holds =
            (kazoo28
                    ? predecessor28(children, c.name, c.recipe)
                    : predecessor(children, c.name, c.recipe))
                == null;
      } else {
        int index = listing.indexOfName(c.name);
        holds =
            Ordering.forKind(listing.get(index).kind()).decide(listing, index)
                instanceof Ordering.Hold;
      }
      if (holds) {
        holders.add(c);
      }
    }
    if (!kazoo28) {
      // kazoo 2.8's reader may wait for a writer that waits for it (kazoo's own deadlock,
      // fixed in 2.9): safe, not live
      assertThat(holders).as("someone holds").isNotEmpty();
    }
    if (holders.size() > 1) {
      assertThat(holders).as("only readers share").noneMatch(c -> exclusive(c.recipe));
    }
  }

  // ---------------------------------------------------------------- the counter's end

  /** Sequences near both ends of the counter and in between, distinct. */
  @Provide
  Arbitrary<List<Integer>> sequences() {
    return Arbitraries.oneOf(
            Arbitraries.integers().between(Integer.MAX_VALUE - 40, Integer.MAX_VALUE),
            Arbitraries.integers().between(Integer.MIN_VALUE, Integer.MIN_VALUE + 40),
            Arbitraries.integers().between(-2000, 2000),
            Arbitraries.integers())
        .list()
        .ofMinSize(1)
        .ofMaxSize(10)
        .uniqueElements();
  }

  @Property(tries = 2000)
  void whereKazooOrdersTheCounterOtherwise_zklockRefuses(
      @ForAll("sequences") List<Integer> sequences, @ForAll long seed) {
    Random r = new Random(seed);
    List<String> children = new ArrayList<>();
    for (int s : sequences) {
      boolean reader = r.nextInt(3) == 0;
      children.add(
          r.nextBoolean()
              ? kazooName(r, reader ? Recipe.READ_LOCK : Recipe.WRITE_LOCK, s)
              : zklockName(reader ? NodeKind.KAZOO_READ : NodeKind.KAZOO_LOCK, s));
    }
    // creation order is the order of the sequences as the counter handed them out: increasing
    // from the oldest; a directory spans less than 2^31, so wrap-around order is creation order
    List<QueueNode> queue = QueueNode.queue(children);
    if (KazooOrder.agrees(queue)) {
      assertThat(queue.stream().map(QueueNode::name).toList())
          .as("kazoo orders every node, and as zklock does")
          .isEqualTo(kazooOrder(children));
    }
    boolean kazooAgrees = kazooOrder(children).equals(queue.stream().map(QueueNode::name).toList());
    if (!kazooAgrees) {
      assertThat(KazooOrder.agrees(queue)).as("refused where kazoo orders otherwise").isFalse();
    }
  }

  @Example
  void aWrappedCounter_isOrderedOtherwiseByKazoo_andRefused() {
    Random r = new Random(7);
    String older = zklockName(NodeKind.KAZOO_LOCK, Integer.MAX_VALUE);
    String wrapped = kazooName(r, Recipe.LOCK, Integer.MIN_VALUE);
    String skipped = kazooName(r, Recipe.LOCK, -1);
    List<String> children = List.of(older, wrapped, skipped);
    assertThat(kazooOrder(children))
        .as("kazoo: the negative first, a sign and nine digits not at all")
        .containsExactly(wrapped, older);
    Listing listing = Listing.of(children);
    assertThat(KazooOrder.agrees(listing)).isFalse();
    assertThat(KazooOrder.firstDisagreeing(listing)).isNotNull();
    assertThat(KazooOrder.refusal("/zklock/polyglot", NodeKind.KAZOO_LOCK, listing.get(0)))
        .contains("/zklock/polyglot")
        .contains("kazoo-compatible kazoo-lock")
        .contains("new path");
  }

  @Example
  void kazoo28sReader_waitsForTheLastWriter_evenOneQueuedAfterIt() {
    Random r = new Random(3);
    String reader = kazooName(r, Recipe.READ_LOCK, 1);
    String writer = zklockName(NodeKind.KAZOO_LOCK, 2);
    List<String> children = List.of(reader, writer);
    assertThat(predecessor(children, reader, Recipe.READ_LOCK)).as("2.9+").isNull();
    assertThat(predecessor28(children, reader, Recipe.READ_LOCK)).as("2.8").isEqualTo(writer);
    // and zklock's writer waits for the reader: with kazoo 2.8's readers, as between two of
    // kazoo 2.8's own clients, a writer queued behind a waiting reader waits for good
    Listing listing = Listing.of(children);
    assertThat(Ordering.exclusive(listing, listing.indexOfName(writer)))
        .isInstanceOf(Ordering.Watch.class);
  }
}
