package io.zklock.internal.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.QueueNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link Inspection#decide} against plain statements of each recipe's rule, on queues given in any
 * order, whose sequence counter starts anywhere (also across the int wrap-around, and near the
 * overflow where the creation zxid orders).
 */
class InspectionPropertiesTest {

  private static final String DIR = "/ns/lock";

  @Provide
  Arbitrary<Integer> counterStart() {
    return Arbitraries.oneOf(
        Arbitraries.integers(),
        Arbitraries.integers().between(Integer.MAX_VALUE - 20, Integer.MAX_VALUE),
        Arbitraries.integers().between(-20, 20));
  }

  /** Nodes of the given kinds in creation order, sequences from {@code start} (wrapping). */
  private static List<Inspection.Read> created(
      List<NodeKind> kinds, int start, String dir, Map<String, String> extra) {
    List<Inspection.Read> out = new ArrayList<>();
    for (int i = 0; i < kinds.size(); i++) {
      int seq = start + i; // wraps like ZooKeeper's counter is compared
      String name =
          QueueNode.prefix(kinds.get(i), String.format("a%011d", i))
              + (seq < 0 ? String.format("%011d", seq) : String.format("%010d", seq));
      Map<String, String> data = new HashMap<>(extra);
      data.put("client", "c" + i);
      out.add(new Inspection.Read(name, dir + "/" + name, 1000L + i, 5L, 77L, 0, data));
    }
    return out;
  }

  private static List<Inspection.Read> shuffled(List<Inspection.Read> in, long seed) {
    List<Inspection.Read> out = new ArrayList<>(in);
    Collections.shuffle(out, new Random(seed));
    return out;
  }

  private static List<String> clients(List<LockNode> nodes) {
    return nodes.stream().map(LockNode::clientName).toList();
  }

  private static List<String> clients(List<Inspection.Read> reads, int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(reads.get(i).data().get("client"));
    }
    return out;
  }

  @Property
  void exclusive_firstCreatedHolds_restWaitInCreationOrder(
      @ForAll @IntRange(min = 1, max = 20) int n,
      @ForAll("counterStart") int start,
      @ForAll boolean election,
      @ForAll long seed) {
    NodeKind kind = election ? NodeKind.ELECTION : NodeKind.MUTEX;
    List<Inspection.Read> nodes = created(Collections.nCopies(n, kind), start, DIR, Map.of());

    LockInfo info =
        Inspection.decide(
                new Inspection.Dir(
                    "lock", DIR, Map.of(), shuffled(nodes, seed), false, List.of(), List.of()))
            .orElseThrow();

    assertThat(info.kind()).isEqualTo(election ? LockInfo.Kind.ELECTION : LockInfo.Kind.MUTEX);
    assertThat(clients(info.holders())).containsExactly("c0");
    assertThat(clients(info.waiters())).isEqualTo(clients(nodes, 1, n));
  }

  @Property(tries = 300)
  void readWrite_holdersAreTheReadersBeforeTheFirstWriter_orTheWriterAtTheHead(
      @ForAll("sides") List<NodeKind> kinds, @ForAll("counterStart") int start, @ForAll long seed) {
    List<Inspection.Read> nodes = created(kinds, start, DIR, Map.of());

    LockInfo info =
        Inspection.decide(
                new Inspection.Dir(
                    "lock", DIR, Map.of(), shuffled(nodes, seed), false, List.of(), List.of()))
            .orElseThrow();

    int firstWriter = kinds.indexOf(NodeKind.WRITE);
    int holders = firstWriter == 0 ? 1 : firstWriter < 0 ? kinds.size() : firstWriter;
    assertThat(info.kind()).isEqualTo(LockInfo.Kind.READ_WRITE);
    assertThat(clients(info.holders())).isEqualTo(clients(nodes, 0, holders));
    assertThat(clients(info.waiters())).isEqualTo(clients(nodes, holders, kinds.size()));
    for (int i = 0; i < holders + info.waiters().size(); i++) {
      LockNode node = i < holders ? info.holders().get(i) : info.waiters().get(i - holders);
      assertThat(node.kind().name()).isEqualTo(kinds.get(i).name());
    }
  }

  @Provide
  Arbitrary<List<NodeKind>> sides() {
    return Arbitraries.of(NodeKind.READ, NodeKind.WRITE).list().ofMinSize(1).ofMaxSize(15);
  }

  @Property(tries = 300)
  void semaphore_firstPermitsLeasesHold_thenLeaseWaiters_thenAdmissionWaitersNotYetLeasing(
      @ForAll @IntRange(min = 1, max = 6) int permits,
      @ForAll @IntRange(min = 0, max = 12) int leases,
      @ForAll @IntRange(min = 0, max = 6) int queued,
      @ForAll("counterStart") int start,
      @ForAll boolean stored,
      @ForAll long seed) {
    // every lease waiter beyond the first came through admission: its admission node is still
    // queued (it is released once the lease is decided); one more admission node per queued request
    List<Inspection.Read> admission =
        created(
            Collections.nCopies(queued + leases, NodeKind.MUTEX), start, DIR + "/queue", Map.of());
    List<Inspection.Read> leaseNodes = new ArrayList<>();
    List<Inspection.Read> plain =
        created(
            Collections.nCopies(leases, NodeKind.SEMAPHORE),
            start + 7,
            DIR + "/leases",
            stored ? Map.of() : Map.of("permits", Integer.toString(permits)));
    for (int i = 0; i < plain.size(); i++) {
      Inspection.Read r = plain.get(i);
      Map<String, String> d = new HashMap<>(r.data());
      d.put("admission", admission.get(i).name());
      leaseNodes.add(new Inspection.Read(r.name(), r.path(), r.czxid(), r.ctimeMillis(), 1L, 0, d));
    }
    Map<String, String> dirData =
        stored ? Map.of("kind", "semaphore", "permits", Integer.toString(permits)) : Map.of();

    Optional<LockInfo> decided =
        Inspection.decide(
            new Inspection.Dir(
                "sem",
                DIR,
                dirData,
                List.of(),
                true,
                shuffled(leaseNodes, seed),
                shuffled(admission, seed + 1)));

    if (leases + queued == 0) {
      assertThat(decided).isEmpty();
      return;
    }
    LockInfo info = decided.orElseThrow();
    int holders = Math.min(leases, permits);
    assertThat(info.kind()).isEqualTo(LockInfo.Kind.SEMAPHORE);
    assertThat(info.permits()).isEqualTo(leases == 0 && !stored ? 0 : permits);
    assertThat(info.holders()).hasSize(holders);
    assertThat(info.holders())
        .extracting(LockNode::path)
        .isEqualTo(pathsOf(leaseNodes, 0, holders));
    List<String> waiters = pathsOf(leaseNodes, holders, leases);
    waiters.addAll(pathsOf(admission, leases, leases + queued));
    assertThat(info.waiters()).extracting(LockNode::path).isEqualTo(waiters);
    assertThat(info.waiters()).allMatch(w -> w.kind() == LockNode.Kind.SEMAPHORE);
    // each request once, with where it stands: the leases that hold, the leases admitted and
    // waiting, then the requests queued for admission (the first of them admitted, if no lease
    // came in by the head of the queue yet)
    assertThat(info.holders()).allMatch(h -> h.state() == LockNode.State.HOLDING);
    List<LockNode.State> states = new ArrayList<>();
    for (int i = holders; i < leases; i++) {
      states.add(LockNode.State.ADMITTED);
    }
    for (int i = 0; i < queued; i++) {
      states.add(leases == 0 && i == 0 ? LockNode.State.ADMITTED : LockNode.State.QUEUED);
    }
    assertThat(info.waiters()).extracting(LockNode::state).isEqualTo(states);
  }

  /** A Curator client's node, of session {@code session}, created with zxid {@code czxid}. */
  private static Inspection.Read curatorNode(String dir, String lockName, int seq, long session) {
    String name =
        "_c_" + java.util.UUID.randomUUID() + "-" + lockName + String.format("%010d", seq);
    return new Inspection.Read(
        name, dir + "/" + name, 100L * seq + 1, 5L, session, 0, Map.of("curator", "c" + session));
  }

  @Example
  void curatorSemaphore_anAdmittedCuratorWaiter_isShownOnce_asItsLease_admitted() {
    // Curator's client 1 holds the one permit; client 2 holds the admission mutex and waits with
    // its lease; zklock's client 3 queues for admission (its node names no lease: it has none)
    Inspection.Read held = curatorNode(DIR + "/leases", "lease-", 1, 1L);
    Inspection.Read admitted = curatorNode(DIR + "/locks", "lock-", 2, 2L);
    Inspection.Read waiting = curatorNode(DIR + "/leases", "lease-", 3, 2L);
    String zName =
        QueueNode.prefix(NodeKind.CURATOR_MUTEX, java.util.UUID.randomUUID().toString())
            + "0000000004";
    Inspection.Read queued =
        new Inspection.Read(
            zName, DIR + "/locks/" + zName, 401L, 5L, 3L, 0, Map.of("client", "z", "kind", "x"));

    LockInfo info =
        Inspection.decide(
                new Inspection.Dir(
                    "s",
                    DIR,
                    Map.of(),
                    List.of(),
                    true,
                    List.of(held, waiting),
                    List.of(queued, admitted)))
            .orElseThrow();

    assertThat(info.holders()).extracting(LockNode::path).containsExactly(held.path());
    assertThat(info.waiters())
        .extracting(LockNode::path, LockNode::state)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(waiting.path(), LockNode.State.ADMITTED),
            org.assertj.core.groups.Tuple.tuple(queued.path(), LockNode.State.QUEUED));
  }

  @Example
  void curatorSemaphore_aHolderQueuedAgainForItsNextLease_isTwoRequests() {
    // Curator's acquire(2): its first lease holds; it queued again for the second and is admitted
    // (the head of the admission queue), its second lease not created yet
    Inspection.Read first = curatorNode(DIR + "/leases", "lease-", 1, 1L);
    Inspection.Read again = curatorNode(DIR + "/locks", "lock-", 2, 1L);

    LockInfo info =
        Inspection.decide(
                new Inspection.Dir(
                    "s", DIR, Map.of(), List.of(), true, List.of(first), List.of(again)))
            .orElseThrow();

    assertThat(info.holders()).extracting(LockNode::path).containsExactly(first.path());
    assertThat(info.waiters())
        .extracting(LockNode::path, LockNode::state)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(again.path(), LockNode.State.ADMITTED));
  }

  @Example
  void curatorSemaphore_aHolderNotYetGivingBackTheAdmission_isShownOnce_holding() {
    // Curator's client holds: its lease holds, and its admission node is not deleted yet
    Inspection.Read admission = curatorNode(DIR + "/locks", "lock-", 1, 1L);
    Inspection.Read lease = curatorNode(DIR + "/leases", "lease-", 2, 1L);

    LockInfo info =
        Inspection.decide(
                new Inspection.Dir(
                    "s", DIR, Map.of(), List.of(), true, List.of(lease), List.of(admission)))
            .orElseThrow();

    assertThat(info.holders())
        .extracting(LockNode::path, LockNode::state)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(lease.path(), LockNode.State.HOLDING));
    assertThat(info.waiters()).isEmpty();
  }

  private static List<String> pathsOf(List<Inspection.Read> reads, int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(reads.get(i).path());
    }
    return out;
  }

  @Property
  void simpleNodeHolds_nothingElse_isSimple(@ForAll @IntRange(min = 0, max = 3) int foreign) {
    List<Inspection.Read> nodes = new ArrayList<>();
    nodes.add(new Inspection.Read("x-lock", DIR + "/x-lock", 9L, 5L, 3L, 0, Map.of("client", "s")));
    for (int i = 0; i < foreign; i++) {
      nodes.add(new Inspection.Read("other-" + i, DIR + "/other-" + i, 9L, 5L, 3L, 0, Map.of()));
    }
    LockInfo info =
        Inspection.decide(
                new Inspection.Dir("s", DIR, Map.of(), nodes, false, List.of(), List.of()))
            .orElseThrow();
    assertThat(info.kind()).isEqualTo(LockInfo.Kind.SIMPLE);
    assertThat(clients(info.holders())).containsExactly("s");
    assertThat(info.waiters()).isEmpty();
  }

  @Property
  void nodeFields_fromDataAndStat(@ForAll("versions") int version) {
    Map<String, String> data =
        Map.of("client", "w-1", "host", "h", "pid", "4242", "owner", "job 7", "participant", "p");
    LockNode n =
        Inspection.node(
            new Inspection.Read(
                "e-x", DIR + "/e-x", 123L, 1_700_000_000_000L, 0x99L, version, data),
            NodeKind.ELECTION,
            LockNode.State.HOLDING);
    assertThat(n.clientName()).isEqualTo("w-1");
    assertThat(n.host()).isEqualTo("h");
    assertThat(n.pid()).isEqualTo(4242L);
    assertThat(n.sessionId()).isEqualTo(0x99L);
    assertThat(n.fencingToken()).isEqualTo(123L);
    assertThat(n.since().toEpochMilli()).isEqualTo(1_700_000_000_000L);
    assertThat(n.ownerData()).isEqualTo("job 7");
    assertThat(n.participantId()).contains("p");
    assertThat(n.releaseRequested()).isEqualTo(version > 0);
    LockNode bare =
        Inspection.node(
            new Inspection.Read("m-x", DIR + "/m-x", 1L, 0L, 2L, 0, Map.of("pid", "?")),
            NodeKind.MUTEX,
            LockNode.State.QUEUED);
    assertThat(bare.clientName()).isEmpty();
    assertThat(bare.pid()).isZero();
    assertThat(bare.ownerData()).isEmpty();
    assertThat(bare.participantId()).isEmpty();
  }

  @Provide
  Arbitrary<Integer> versions() {
    return Arbitraries.integers().between(0, 3);
  }

  /** A node named as Curator's protected nodes are: {@code _c_<uuid>-<lock name><sequence>}. */
  private static Inspection.Read curator(String dir, String lockName, int seq) {
    String name =
        "_c_" + java.util.UUID.randomUUID() + "-" + lockName + String.format("%010d", seq);
    return new Inspection.Read(name, dir + "/" + name, 2000L + seq, 5L, 77L, 0, Map.of());
  }

  @Example
  void aDirectoryMixingRecipes_isFlaggedInItsState_withItsKinds() {
    List<Inspection.Read> nodes =
        List.of(curator(DIR, "latch-", 0), curator(DIR, "lock-", 1), curator(DIR, "latch-", 2));

    LockInfo info =
        Inspection.decide(
                new Inspection.Dir("lock", DIR, Map.of(), nodes, false, List.of(), List.of()))
            .orElseThrow();

    assertThat(info.state()).containsExactly(Map.entry("mix", "curator-latch,curator-mutex"));
  }

  @Example
  void oneRecipePerDirectory_isNotFlagged() {
    // a Curator mutex's queue, its zklock counterpart's nodes included (the same kind)
    List<Inspection.Read> curatorMutex =
        List.of(curator(DIR, "lock-", 0), curator(DIR, "lock-", 1));
    // zklock's own kinds share a directory among themselves
    List<Inspection.Read> plain =
        created(List.of(NodeKind.READ, NodeKind.WRITE, NodeKind.MUTEX), 0, DIR, Map.of());
    // a Curator semaphore: leases in one directory, its admission mutex's nodes in another
    List<Inspection.Read> leases = List.of(curator(DIR, "lease-", 0), curator(DIR, "lease-", 1));
    List<Inspection.Read> admission = List.of(curator(DIR, "lock-", 2));

    for (Inspection.Dir d :
        List.of(
            new Inspection.Dir("m", DIR, Map.of(), curatorMutex, false, List.of(), List.of()),
            new Inspection.Dir("p", DIR, Map.of(), plain, false, List.of(), List.of()),
            new Inspection.Dir("s", DIR, Map.of(), List.of(), true, leases, admission))) {
      assertThat(Inspection.decide(d).orElseThrow().state()).as(d.name()).isEmpty();
    }
  }

  @Example
  void aSemaphoreWhoseLeasesMixRecipes_isFlagged() {
    List<Inspection.Read> leases =
        new ArrayList<>(created(List.of(NodeKind.SEMAPHORE), 0, DIR, Map.of()));
    leases.add(curator(DIR, "lease-", 1));

    LockInfo info =
        Inspection.decide(
                new Inspection.Dir("s", DIR, Map.of(), List.of(), true, leases, List.of()))
            .orElseThrow();

    assertThat(info.state().get("mix")).isEqualTo("curator-lease,semaphore");
  }

  private static Inspection.Read foreignRead(String name, long czxid, String data) {
    return new Inspection.Read(
        name, DIR + "/" + name, czxid, 5L, 99L, 0, Map.of(Inspector.CURATOR_FIELD, data));
  }

  /**
   * A Go client's node shows its client and its guid (its data when it gave some); Go's client
   * waits for every name it reads a sequence from, kazoo's among them, so behind an older kazoo
   * node a Go node is shown waiting, as Go's own rule decides ({@code ClientOrder.go}).
   */
  @Example
  void aGoClientsNode_isNamedAsGos_andHoldsOrWaitsAsGoDecides() {
    String guid = "0a1b2c3d4e5f60718293a4b5c6d7e8f9";
    Inspection.Read go = foreignRead("_c_" + guid + "-lock-0000000007", 20L, "");
    Inspection.Read goWithData =
        foreignRead("_c_" + "f".repeat(32) + "-lock-0000000009", 21L, "job-7");

    LockInfo alone =
        Inspection.decide(
                new Inspection.Dir(
                    "lock", DIR, Map.of(), List.of(goWithData, go), false, List.of(), List.of()))
            .orElseThrow();
    LockNode holder = alone.holders().get(0);
    assertThat(holder.kind()).isEqualTo(LockNode.Kind.GO_LOCK);
    assertThat(holder.clientName()).isEqualTo("(go-zookeeper)");
    assertThat(holder.ownerData()).isEqualTo(guid);
    assertThat(holder.data()).containsEntry("go", guid);
    assertThat(alone.waiters()).extracting(LockNode::ownerData).containsExactly("job-7");

    Inspection.Read kazoo =
        foreignRead("3e2becd2a0f54b7e9d1c6b2a8f7e4d10__lock__0000000003", 10L, "settlement-job");
    LockInfo mixed =
        Inspection.decide(
                new Inspection.Dir(
                    "lock", DIR, Map.of(), List.of(go, kazoo), false, List.of(), List.of()))
            .orElseThrow();
    assertThat(mixed.holders()).extracting(LockNode::clientName).containsExactly("(kazoo)");
    assertThat(mixed.waiters())
        .as("Go's client reads kazoo's sequence and waits for it")
        .extracting(LockNode::clientName)
        .containsExactly("(go-zookeeper)");
  }
}
