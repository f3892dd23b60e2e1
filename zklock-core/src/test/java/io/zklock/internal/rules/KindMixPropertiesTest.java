package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The rule that refuses a mix of recipes in one directory ({@link KindMix}, issue 28): it refuses
 * every directory in which one of Curator's recipes would order the children otherwise than zklock
 * does, and never a directory of zklock's own kinds. Curator's orders are written out as its 5.9
 * source has them: {@code StandardLockInternalsDriver.standardFixForSorting} (the text after the
 * last occurrence of the lock name, or the whole name without one) with {@code lock-} for {@code
 * InterProcessMutex} and {@code LeaderSelector}, {@code latch-} for {@code LeaderLatch}, and both
 * {@code __READ__} and {@code __WRIT__} for {@code InterProcessReadWriteLock}'s sorting driver.
 */
class KindMixPropertiesTest {

  /** Curator's lock names per recipe whose clients sort a directory (leases are only counted). */
  private static final Map<NodeKind, List<String>> CURATOR_SORTS =
      Map.of(
          NodeKind.CURATOR_MUTEX, List.of("lock-"),
          NodeKind.CURATOR_READ, List.of("__READ__", "__WRIT__"),
          NodeKind.CURATOR_WRITE, List.of("__READ__", "__WRIT__"),
          NodeKind.CURATOR_LATCH, List.of("latch-"));

  @Provide
  Arbitrary<List<NodeKind>> mixedKinds() {
    List<NodeKind> queued = new ArrayList<>(EnumSet.allOf(NodeKind.class));
    queued.remove(NodeKind.SIMPLE); // x-lock never queues
    queued.remove(NodeKind.KAZOO_LEASE); // nor do kazoo's leases (bare names, no sequence)
    // mostly one or two kinds, so that both agreeing and mixed directories come up often
    return Arbitraries.of(queued)
        .list()
        .ofMinSize(1)
        .ofMaxSize(3)
        .flatMap(pool -> Arbitraries.of(pool).list().ofMinSize(1).ofMaxSize(25));
  }

  @Property(tries = 500)
  void everyDirectoryCuratorWouldMisorder_isRefused_toEveryKindInIt(
      @ForAll("mixedKinds") List<NodeKind> kinds, @ForAll long seed) {
    Random random = new Random(seed);
    List<String> names = created(kinds, random.nextInt(1_000_000), random);
    List<String> shuffled = new ArrayList<>(names);
    Collections.shuffle(shuffled, random);
    Listing listing = Listing.of(shuffled);

    boolean misordered = false;
    for (QueueNode n : listing) {
      List<String> lockNames = CURATOR_SORTS.get(n.kind());
      if (lockNames != null && !curatorSorted(shuffled, lockNames).equals(names)) {
        misordered = true;
      }
    }
    if (misordered) {
      for (QueueNode n : listing) {
        assertThat(KindMix.conflict(n.kind(), listing))
            .as("a %s request in %s", n.kind(), names)
            .isNotNull();
      }
    }
    Set<Integer> families = new java.util.HashSet<>();
    kinds.forEach(k -> families.add(KindMix.family(k)));
    for (QueueNode n : listing) {
      assertThat(KindMix.conflict(n.kind(), listing) == null)
          .as("refused exactly when two recipes' families meet: %s", kinds)
          .isEqualTo(families.size() == 1);
    }
  }

  @Property(tries = 300)
  void listingsMask_findsWhatAScanFinds(
      @ForAll("mixedKinds") List<NodeKind> kinds, @ForAll NodeKind ours, @ForAll long seed) {
    Random random = new Random(seed);
    List<String> names = created(kinds, random.nextInt(1_000_000), random);
    Listing listing = Listing.of(names);
    QueueNode scanned = null;
    for (QueueNode n : listing) {
      if (!KindMix.compatible(ours, n.kind())) {
        scanned = n;
        break;
      }
    }
    assertThat(KindMix.conflict(ours, listing)).isEqualTo(scanned);
    assertThat(KindMix.conflict(ours, new ArrayList<>(listing))).isEqualTo(scanned);
  }

  @Property
  void compatible_isSymmetricAndReflexive(@ForAll NodeKind a, @ForAll NodeKind b) {
    assertThat(KindMix.compatible(a, a)).isTrue();
    assertThat(KindMix.compatible(a, b)).isEqualTo(KindMix.compatible(b, a));
  }

  /** The recipe each kind belongs to, as Curator's recipes lay out one directory (the spec). */
  private static String recipe(NodeKind kind) {
    switch (kind) {
      case CURATOR_MUTEX:
      case GO_LOCK: // Go's Lock and Curator's mutex read each other's sequences (ClientOrder)
        return "InterProcessMutex, LeaderSelector, go-zookeeper's Lock";
      case CURATOR_READ:
      case CURATOR_WRITE:
        return "InterProcessReadWriteLock";
      case CURATOR_LATCH:
        return "LeaderLatch";
      case CURATOR_LEASE:
        return "InterProcessSemaphoreV2's leases";
      case KAZOO_LOCK:
      case KAZOO_READ:
        return "kazoo's Lock, WriteLock, ReadLock, Election";
      case KAZOO_LEASE:
        return "kazoo's Semaphore's leases";
      default:
        return "zklock's own";
    }
  }

  @Property
  void compatible_exactlyWithinOneRecipe(@ForAll NodeKind a, @ForAll NodeKind b) {
    assertThat(KindMix.compatible(a, b))
        .as("%s beside %s", a, b)
        .isEqualTo(recipe(a).equals(recipe(b)));
  }

  @Property
  void mixed_onAKindMask_isAnyKindInItIncompatible(
      @ForAll NodeKind ours, @ForAll Set<NodeKind> present) {
    int mask = 0;
    boolean expected = false;
    for (NodeKind k : present) {
      mask |= KindMix.bit(k);
      expected |= !KindMix.compatible(ours, k);
    }
    assertThat(KindMix.mixed(ours, mask)).isEqualTo(expected);
  }

  @Example
  void refusal_namesTheRecipeOfTheNodeFound_andOurs() {
    Random r = new Random(4);
    Map<NodeKind, String> says =
        Map.of(
            NodeKind.CURATOR_READ, "InterProcessReadWriteLock",
            NodeKind.CURATOR_WRITE, "InterProcessReadWriteLock",
            NodeKind.CURATOR_LEASE, "InterProcessSemaphoreV2",
            NodeKind.CURATOR_LATCH, "LeaderLatch",
            NodeKind.CURATOR_MUTEX, "LeaderSelector",
            NodeKind.MUTEX, "zklock's plain mutex",
            NodeKind.ELECTION, "zklock's plain election");
    says.forEach(
        (kind, text) -> {
          QueueNode found = QueueNode.parse(name(kind, 7, r));
          NodeKind ours = kind.curator() ? NodeKind.MUTEX : NodeKind.CURATOR_LATCH;
          assertThat(KindMix.refusal("/d", ours, found))
              .contains(text, found.name(), "/d")
              .contains(ours.curator() ? "Curator-compatible curator-latch" : "plain mutex");
        });
  }

  @Example
  void selectorAfterLatch_curatorsSelectorLeadsToo_soTheRuleRefusesBoth() {
    // a zklock latch participant (sequence 1) leads; a LeaderSelector's mutex node joins (2)
    String latch = name(NodeKind.CURATOR_LATCH, 1, new Random(1));
    String selector = name(NodeKind.CURATOR_MUTEX, 2, new Random(2));
    List<String> children = List.of(latch, selector);
    assertThat(curatorSorted(children, List.of("lock-")))
        .as("Curator's mutex sorts the latch node after its own: the selector is the head")
        .containsExactly(selector, latch);
    Listing listing = Listing.of(children);
    assertThat(KindMix.conflict(NodeKind.CURATOR_LATCH, listing).name()).isEqualTo(selector);
    assertThat(KindMix.conflict(NodeKind.CURATOR_MUTEX, listing).name()).isEqualTo(latch);
    assertThat(KindMix.refusal("/svc/leader", NodeKind.CURATOR_LATCH, listing.get(1)))
        .contains("/svc/leader", selector, "LeaderSelector", "compatible mutex")
        .contains("migrating-from-curator.md");
  }

  @Example
  void zklocksOwnKinds_mixAsBefore_andEachCuratorFamilyWithItself() {
    Random r = new Random(3);
    assertThat(
            KindMix.conflict(
                NodeKind.MUTEX,
                Listing.of(
                    List.of(
                        name(NodeKind.READ, 1, r),
                        name(NodeKind.ELECTION, 2, r),
                        name(NodeKind.COHORT, 3, r)))))
        .isNull();
    assertThat(
            KindMix.conflict(
                NodeKind.CURATOR_READ,
                Listing.of(
                    List.of(
                        name(NodeKind.CURATOR_WRITE, 1, r), name(NodeKind.CURATOR_READ, 2, r)))))
        .isNull();
    assertThat(
            KindMix.conflict(
                NodeKind.CURATOR_MUTEX, Listing.of(List.of(name(NodeKind.MUTEX, 1, r)))))
        .as("a compatible request beside zklock's plain node: Curator's clients would not see it")
        .isNotNull();
    assertThat(KindMix.conflict(NodeKind.CURATOR_MUTEX, Listing.of(List.of()))).isNull();
  }

  // ---------------------------------------------------------------- Curator's sort, written out

  private static String fixForSorting(String str, String lockName) {
    int index = str.lastIndexOf(lockName);
    if (index >= 0) {
      index += lockName.length();
      return index <= str.length() ? str.substring(index) : "";
    }
    return str;
  }

  private static List<String> curatorSorted(List<String> children, List<String> lockNames) {
    List<String> sorted = new ArrayList<>(children);
    sorted.sort(
        (l, r) -> {
          String a = l;
          String b = r;
          for (String lockName : lockNames) {
            a = fixForSorting(a, lockName);
            b = fixForSorting(b, lockName);
          }
          return a.compareTo(b);
        });
    return sorted;
  }

  private static String name(NodeKind kind, int seq, Random random) {
    String id =
        kind.curator()
            ? new java.util.UUID(random.nextLong(), random.nextLong()).toString()
            : QueueNode.newAttemptId(kind);
    return QueueNode.prefix(kind, id) + String.format("%010d", seq);
  }

  /** Names in creation order, sequences rising with gaps (nodes made and gone meanwhile). */
  private static List<String> created(List<NodeKind> kinds, int first, Random random) {
    List<String> names = new ArrayList<>();
    int seq = first;
    for (NodeKind k : kinds) {
      names.add(name(k, seq, random));
      seq += 1 + random.nextInt(3);
    }
    return names;
  }

  /** What inspection shows of a directory ({@code LockInfo.state()}'s {@code mix}). */
  @Property(tries = 300)
  void mixOf_namesEveryKind_exactlyWhenTwoMayNotShareTheDirectory(
      @ForAll("mixedKinds") List<NodeKind> kinds) {
    boolean refused = false;
    for (NodeKind a : kinds) {
      for (NodeKind b : kinds) {
        refused |= !KindMix.compatible(a, b);
      }
    }
    String mix = KindMix.mixOf(kinds);
    if (!refused) {
      assertThat(mix).isNull();
      return;
    }
    assertThat(mix)
        .isEqualTo(
            String.join(",", kinds.stream().map(NodeKind::label).distinct().sorted().toList()));
  }

  @Example
  void mixOf_aLatchBesideASelector_isNamed_aCompatiblePair_isNot() {
    assertThat(KindMix.mixOf(List.of(NodeKind.CURATOR_MUTEX, NodeKind.CURATOR_LATCH)))
        .isEqualTo("curator-latch,curator-mutex");
    assertThat(KindMix.mixOf(List.of(NodeKind.CURATOR_READ, NodeKind.CURATOR_WRITE))).isNull();
    assertThat(KindMix.mixOf(List.of(NodeKind.MUTEX, NodeKind.READ, NodeKind.WRITE))).isNull();
    assertThat(KindMix.mixOf(List.of())).isNull();
  }
}
