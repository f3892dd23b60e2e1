package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Which children of a lock directory are another program's lock nodes ({@link ForeignNode}): every
 * sequential node that is not zklock's own (nor kazoo's, which are queue kinds of their own:
 * KazooOrderPropertiesTest) is found, and nothing of zklock's own is. The other libraries' names
 * and orders are written out here as their sources have them: go-zookeeper's {@code Lock} ({@code
 * CreateProtectedEphemeralSequential(path + "/lock-")}: {@code _c_<32 hex>-lock-<seq>}; {@code
 * parseSeq} splits at {@code lock-}, else at {@code __}), ZooKeeper's {@code WriteLock} recipe
 * ({@code x-<session id>-<seq>}).
 */
class ForeignNodePropertiesTest {

  /** ZooKeeper's sequence suffix: {@code String.format(Locale.ENGLISH, "%010d", cversion)}. */
  static String seq(int n) {
    return String.format(Locale.ENGLISH, "%010d", n);
  }

  static String kazooName(Random r, boolean reader, int n) {
    byte[] b = new byte[16];
    r.nextBytes(b);
    return HexFormat.of().formatHex(b) + (reader ? "__rlock__" : "__lock__") + seq(n);
  }

  static String goName(Random r, int n) {
    byte[] b = new byte[16];
    r.nextBytes(b);
    return "_c_" + HexFormat.of().formatHex(b) + "-lock-" + seq(n);
  }

  @Provide
  Arbitrary<NodeKind> queueKinds() {
    // x-lock and kazoo's semaphore leases (bare ids, no sequence) are not queue nodes
    return Arbitraries.of(EnumSet.complementOf(EnumSet.of(NodeKind.SIMPLE, NodeKind.KAZOO_LEASE)));
  }

  // ---------------------------------------------------------------- ours stays ours

  @Property(tries = 1000)
  void everyNodeZklockQueues_isRecognised(@ForAll("queueKinds") NodeKind kind, @ForAll int n) {
    String name = QueueNode.prefix(kind, QueueNode.newAttemptId(kind)) + seq(n);
    assertThat(ForeignNode.classify(name)).as(name).isNull();
    assertThat(Listing.of(List.of(name)).foreign()).isEmpty();
  }

  @Property(tries = 300)
  void conditionWaiters_areRecognised(@ForAll int n) {
    String name = ConditionRule.WAITER_PREFIX + QueueNode.newAttemptId() + "-" + seq(n);
    assertThat(ForeignNode.classify(name)).as(name).isNull();
  }

  @Example
  void zklocksOwnChildren_thatAreNoLockNodes_areRecognised() {
    // the simple lock's node, a hold-off mark, a semaphore's and a Curator-compatible
    // semaphore's directories, a condition's directory under a longer lock name
    for (String name :
        List.of("x-lock", "hold-off", "leases", "queue", "locks", "jobs.cond-notEmpty", "42")) {
      assertThat(ForeignNode.classify(name)).as(name).isNull();
    }
  }

  /** A segment of a lock name, as users write them: letters, digits and a few separators. */
  @Provide
  Arbitrary<String> lockSegments() {
    return Arbitraries.strings()
        .withChars("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:")
        .ofMinLength(1)
        .ofMaxLength(40);
  }

  @Property(tries = 2000)
  void aLongerLockNamesDirectory_isNeverTakenForALockNode_byItsNameAlone(
      @ForAll("lockSegments") String segment) {
    ForeignNode f = ForeignNode.classify(segment);
    if (ForeignNode.suffixLength(segment) == 0) {
      assertThat(f).as("no sequence suffix: not a lock node").isNull();
    }
    if (f != null && !f.certain()) {
      // a name no known library makes: its stat decides, and a directory is never ephemeral
      assertThat(ForeignNode.ephemeral(Long.MIN_VALUE)).as("a container").isFalse();
      assertThat(ForeignNode.ephemeral(0L)).as("a persistent node").isFalse();
    }
  }

  @Property(tries = 500)
  void aSessionsNode_isEphemeral_aDirectoryIsNot(
      @ForAll @IntRange(min = 0, max = 254) int serverId, @ForAll long counter) {
    long session = ((long) serverId << 56) | (counter & 0x00ff_ffff_ffff_ffffL);
    if (session != 0L && serverId != 0x80) {
      assertThat(ForeignNode.ephemeral(session)).as("session 0x%x", session).isTrue();
    }
    long ttl = 0xff00_0000_0000_0000L | (counter & 0x00ff_ffff_ffff_ffffL);
    assertThat(ForeignNode.ephemeral(ttl)).as("a node with a time to live").isFalse();
  }

  // ---------------------------------------------------------------- every sequential node is seen

  /** Any prefix a program might give a sequential node, ZooKeeper's path characters. */
  @Provide
  Arbitrary<String> prefixes() {
    return Arbitraries.oneOf(
        Arbitraries.strings().withChars("abcdefxyz_-0123456789").ofMaxLength(20),
        Arbitraries.strings().ascii().ofMaxLength(30).filter(s -> s.indexOf('/') < 0),
        Arbitraries.of(
            "", "lock-", "lock", "n_", "qn-", "x-", "_c_", "__lock__", "ex", "sh", "write-"));
  }

  @Property(tries = 3000)
  void everySequentialNodeThatIsNotOurs_isForeign(
      @ForAll("prefixes") String prefix, @ForAll int n) {
    String name = prefix + seq(n);
    boolean ours = QueueNode.parse(name) != null || ConditionRule.parse(name) != null;
    ForeignNode f = ForeignNode.classify(name);
    assertThat(f == null)
        .as("%s: recognised exactly when it is zklock's own", name)
        .isEqualTo(ours);
    Listing listing = Listing.of(List.of(name));
    assertThat(listing.foreign().size() + listing.size()).as("kept, one way or the other").isOne();
  }

  @Property(tries = 500)
  void aListing_keepsItsForeignNodesApart_andItsQueueAsBefore(
      @ForAll @IntRange(min = 0, max = 8) int go,
      @ForAll @IntRange(min = 0, max = 8) int ours,
      @ForAll long seed) {
    Random r = new Random(seed);
    List<String> names = new ArrayList<>();
    int s = r.nextInt(1_000_000);
    List<String> own = new ArrayList<>();
    for (int i = 0; i < ours + go; i++) {
      if (i < ours) {
        String m = QueueNode.prefix(NodeKind.MUTEX, QueueNode.newAttemptId()) + seq(s + i);
        names.add(m);
        own.add(m);
      } else {
        names.add("x-" + r.nextLong() + "-" + seq(s + i)); // ZooKeeper's WriteLock recipe
      }
    }
    Collections.shuffle(names, r);
    Listing listing = Listing.of(names);
    assertThat(listing.stream().map(QueueNode::name).toList()).isEqualTo(own);
    assertThat(listing.foreign()).hasSize(go);
    assertThat(ForeignNode.firstCertain(listing.foreign()) != null).isEqualTo(go > 0);
    for (ForeignNode f : listing.foreign()) {
      assertThat(f.library()).isEqualTo(ForeignNode.Library.ZOOKEEPER_RECIPES);
    }
  }

  // ---------------------------------------------------------------- the libraries' own names

  @Property(tries = 500)
  void kazoosNodes_areNotForeign_butKazooKinds(
      @ForAll boolean reader, @ForAll int n, @ForAll long seed) {
    String name = kazooName(new Random(seed), reader, n);
    assertThat(ForeignNode.classify(name)).as(name).isNull();
    assertThat(QueueNode.parse(name).kind())
        .isEqualTo(reader ? NodeKind.KAZOO_READ : NodeKind.KAZOO_LOCK);
    assertThat(Listing.of(List.of(name)).foreign()).isEmpty();
  }

  /** go-zookeeper's {@code parseSeq}. */
  static int goParseSeq(String name) {
    String[] parts = name.split("lock-", -1);
    if (parts.length == 1) {
      parts = name.split("__", -1);
    }
    return Integer.parseInt(parts[parts.length - 1]);
  }

  @Property(tries = 500)
  void goNodes_areNotForeign_butGoLockNodes_withTheSequenceGoReads(
      @ForAll int n, @ForAll long seed) {
    String name = goName(new Random(seed), n);
    assertThat(ForeignNode.classify(name)).as(name).isNull();
    QueueNode q = QueueNode.parse(name);
    assertThat(q.kind()).isEqualTo(NodeKind.GO_LOCK);
    assertThat(q.sequence()).isEqualTo(n).isEqualTo(goParseSeq(name));
    assertThat(q.attemptId()).hasSize(QueueNode.GO_GUID_LENGTH);
  }

  @Property(tries = 300)
  void curatorsOtherRecipes_areCurators(
      @ForAll("otherCuratorLockNames") String lockName, @ForAll int n) {
    String name = "_c_" + UUID.randomUUID() + "-" + lockName + seq(n);
    ForeignNode f = ForeignNode.classify(name);
    assertThat(f).as(name).isNotNull();
    assertThat(f.library()).isEqualTo(ForeignNode.Library.CURATOR);
  }

  @Provide
  Arbitrary<String> otherCuratorLockNames() {
    return Arbitraries.of("queue-", "qn-", "member-", "barrier-", "something-else-");
  }

  @Property(tries = 300)
  void zookeepersWriteLockRecipe_isNamed(@ForAll long session, @ForAll int n) {
    String name = "x-" + session + "-" + seq(n);
    ForeignNode f = ForeignNode.classify(name);
    assertThat(f.library()).as(name).isEqualTo(ForeignNode.Library.ZOOKEEPER_RECIPES);
    assertThat(f.sequence()).isEqualTo(n);
  }

  @Property(tries = 300)
  void aNewerZklocksKind_isNamedAsAnotherZklock(
      @ForAll("unknownKindPrefixes") String prefix, @ForAll int n) {
    String name = prefix + "-" + QueueNode.newAttemptId() + "-" + seq(n);
    ForeignNode f = ForeignNode.classify(name);
    assertThat(f.library()).as(name).isEqualTo(ForeignNode.Library.ZKLOCK_OTHER);
  }

  @Provide
  Arbitrary<String> unknownKindPrefixes() {
    return Arbitraries.strings()
        .withCharRange('a', 'z')
        .ofMinLength(1)
        .ofMaxLength(3)
        .filter(p -> NodeKind.ofPrefix(p) == null && !p.equals("cv"));
  }

  @Example
  void namesFromTheLibrariesSources() {
    assertThat(ForeignNode.classify("3e2becd2a0f54b7e9d1c6b2a8f7e4d10__lock__0000000000"))
        .as("kazoo's: a queue kind of its own")
        .isNull();
    assertThat(ForeignNode.classify("_c_0a1b2c3d4e5f60718293a4b5c6d7e8f9-lock-0000000003"))
        .as("Go's: a queue kind of its own")
        .isNull();
    assertThat(ForeignNode.classify("x-72057594037927936-0000000001").library())
        .isEqualTo(ForeignNode.Library.ZOOKEEPER_RECIPES);
    assertThat(ForeignNode.classify("n_0000000001").library())
        .isEqualTo(ForeignNode.Library.UNKNOWN);
    assertThat(ForeignNode.classify("n_0000000001").certain()).isFalse();
    assertThat(ForeignNode.classify("0000000042").library())
        .as("a sequential node with no prefix, or a lock named .../0000000042: the stat decides")
        .isEqualTo(ForeignNode.Library.UNKNOWN);
    assertThat(ForeignNode.classify("lock-99999999999")).as("not a 32-bit sequence").isNull();
  }

  // ---------------------------------------------------------------- who likely holds (display)

  @Property(tries = 300)
  void likelyHolders_ofZooKeepersRecipeNodes_isTheLowestSequence(
      @ForAll @IntRange(min = 1, max = 10) int count, @ForAll long seed) {
    Random r = new Random(seed);
    List<ForeignNode> foreign = new ArrayList<>();
    int s = r.nextInt(1_000_000);
    for (int i = 0; i < count; i++) {
      foreign.add(ForeignNode.classify("x-" + r.nextLong() + "-" + seq(s + i)));
    }
    String lowest = foreign.get(0).name();
    Collections.shuffle(foreign, r);
    assertThat(ForeignNode.likelyHolders(foreign)).containsExactly(lowest);
  }

  // ---------------------------------------------------------------- the refusal

  @Example
  void refusal_namesTheDirectoryTheNodeAndTheLibrary() {
    ForeignNode f = ForeignNode.classify("x-72057594037927936-0000000003");
    String message = ForeignNode.refusal("/zklock/polyglot", NodeKind.MUTEX, f);
    assertThat(message)
        .contains("/zklock/polyglot")
        .contains("x-72057594037927936-0000000003")
        .contains("ZooKeeper's WriteLock recipe")
        .contains("mutex");
  }
}
