package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * {@link KazooSemaphore}'s rules against what Python kazoo's {@code Semaphore} does (kazoo 2.8's
 * kazoo/recipe/lock.py; unchanged since): its reading of the stored {@code max_leases} ({@code
 * int(data.decode("utf-8"))}, written out below from Python's grammar for {@code int()} of a
 * string), its {@code len(children) < max_leases}, and a model of clients of both libraries
 * admitted one at a time through one lock.
 */
class KazooSemaphorePropertiesTest {
  /** Python's {@code int(str)} in base 10: whitespace, a sign, digits with single underscores. */
  private static final Pattern PYTHON_INT = Pattern.compile("\\s*([+-]?)(\\d(?:_?\\d)*)\\s*");

  private static BigInteger python(String s) {
    Matcher m = PYTHON_INT.matcher(s);
    if (!m.matches()) {
      return null;
    }
    BigInteger v = new BigInteger(m.group(2).replace("_", ""));
    return m.group(1).equals("-") ? v.negate() : v;
  }

  @Provide
  Arbitrary<String> countish() {
    return Arbitraries.strings().withChars("0123456789_+- \t\n{}x").ofMinLength(0).ofMaxLength(12);
  }

  @Property(tries = 500)
  void theCountIsReadAsPythonsIntReadsIt(@ForAll("countish") String text) {
    BigInteger expected = python(text);
    Long got = KazooSemaphore.pythonInt(text);
    if (expected == null) {
      assertThat(got).as("int(%s) raises", text).isNull();
    } else {
      long clamped =
          expected.bitLength() < 64
              ? expected.longValue()
              : expected.signum() > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
      assertThat(got).as("int(%s)", text).isEqualTo(clamped);
    }
  }

  @Property
  void whatAClientStores_isSameForItsCount_andAnotherCountForAnyOther(
      @ForAll @IntRange(min = 1, max = 10_000) int stored,
      @ForAll @IntRange(min = 1, max = 10_000) int asked) {
    KazooSemaphore.Data d = KazooSemaphore.judgeData(KazooSemaphore.countData(stored), asked);
    assertThat(d.verdict())
        .isEqualTo(
            stored == asked ? KazooSemaphore.Verdict.SAME : KazooSemaphore.Verdict.OTHER_COUNT);
    if (stored != asked) {
      assertThat(KazooSemaphore.dataRefusal("/zklock/pool", d, asked))
          .contains("max_leases " + stored)
          .contains("asked for " + asked);
    }
  }

  @Property(tries = 500)
  void anyData_isSameOnlyWhenKazooReadsTheClientsCount_andRefusedUnlessSameOrEmpty(
      @ForAll("countish") String text, @ForAll @IntRange(min = 1, max = 20) int permits) {
    KazooSemaphore.Data d =
        KazooSemaphore.judgeData(text.getBytes(StandardCharsets.UTF_8), permits);
    BigInteger kazoo = python(text);
    boolean kazooAgrees = kazoo != null && kazoo.equals(BigInteger.valueOf(permits));
    assertThat(d.verdict() == KazooSemaphore.Verdict.SAME).isEqualTo(kazooAgrees);
    if (text.isEmpty()) {
      assertThat(d.verdict()).isEqualTo(KazooSemaphore.Verdict.UNCLAIMED);
    } else if (d.verdict() != KazooSemaphore.Verdict.SAME) {
      // every other verdict is a refusal that shows the data found
      assertThat(KazooSemaphore.dataRefusal("/zklock/pool", d, permits))
          .contains("/zklock/pool")
          .contains(
              kazoo != null ? text.strip() : text.length() > 80 ? text.substring(0, 80) : text);
    }
  }

  @Property
  void zklocksJson_isRefusedNamingThePlainSemaphore(
      @ForAll @IntRange(min = 1, max = 20) int stored,
      @ForAll @IntRange(min = 1, max = 20) int permits) {
    String json = "{\"kind\":\"semaphore\",\"permits\":" + stored + "}";
    KazooSemaphore.Data d =
        KazooSemaphore.judgeData(json.getBytes(StandardCharsets.UTF_8), permits);
    assertThat(d.verdict()).isEqualTo(KazooSemaphore.Verdict.ZKLOCK_DATA);
    assertThat(KazooSemaphore.dataRefusal("/zklock/pool", d, permits))
        .contains(json)
        .contains("locks.semaphore(name, permits)");
  }

  @Provide
  Arbitrary<List<String>> children() {
    Arbitrary<String> lease = Arbitraries.strings().withChars("0123456789abcdef").ofLength(32);
    Arbitrary<String> other = Arbitraries.of("queue", "leases", "locks", "notes", "x-lock");
    return Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(9, lease), net.jqwik.api.Tuple.of(1, other))
        .list()
        .ofMaxSize(8)
        .uniqueElements();
  }

  @Property(tries = 500)
  void anAdmittedClientCreates_exactlyWhenKazoosCountIsBelowThePermits_elseWaits_orRefusesALayout(
      @ForAll("children") List<String> children, @ForAll @IntRange(min = 1, max = 6) int permits) {
    KazooSemaphore.Decision d = KazooSemaphore.lease(children, permits);
    String layout =
        children.stream()
            .filter(c -> c.equals("queue") || c.equals("leases") || c.equals("locks"))
            .findFirst()
            .orElse(null);
    if (layout != null) {
      assertThat(d).isEqualTo(new KazooSemaphore.Refuse(layout));
      assertThat(KazooSemaphore.childRefusal("/zklock/pool", layout))
          .contains("/zklock/pool/" + layout);
    } else if (children.size() < permits) { // kazoo: if len(children) < self.max_leases: create
      assertThat(d).isInstanceOf(KazooSemaphore.Create.class);
    } else {
      assertThat(d).isEqualTo(new KazooSemaphore.Full(children.size()));
    }
  }

  /**
   * Clients of both libraries arrive, are admitted one at a time in arrival order (the one lock at
   * {@code <path>-__lock__}, {@link Ordering#exclusive} on kazoo's names), list and lease by {@link
   * KazooSemaphore#lease} (zklock's) or by kazoo's own {@code len(children) < max_leases} (kazoo's,
   * for {@code count} 1), and release at random; a zklock client may ask for several permits, one
   * lease at a time. At every step at most {@code permits} leases exist, and the leases are granted
   * in arrival order.
   */
  @Property(tries = 300)
  void mixedClients_admittedInTurn_neverExceedThePermits_andAreServedInArrivalOrder(
      @ForAll @IntRange(min = 1, max = 4) int permits,
      @ForAll @Size(min = 5, max = 80) List<@IntRange(min = 0, max = 99) Integer> steps) {
    Deque<int[]> admission = new ArrayDeque<>(); // {client, permits wanted, leases taken}
    List<String> children = new ArrayList<>();
    Map<Integer, List<String>> held = new HashMap<>();
    List<Integer> served = new ArrayList<>();
    int arrived = 0;
    int leaseId = 0;
    for (int step : steps) {
      if (step < 30) { // a client arrives: even ones zklock's (1 or 2 permits), odd ones kazoo's
        int client = arrived++;
        int want = client % 2 == 0 ? 1 + step % Math.min(2, permits) : 1;
        admission.addLast(new int[] {client, want, 0});
      } else if (step < 75) { // the admitted one lists and leases
        int[] head = admission.peekFirst();
        if (head == null) {
          continue;
        }
        boolean zklock = head[0] % 2 == 0;
        boolean create =
            zklock
                ? KazooSemaphore.lease(children, permits) instanceof KazooSemaphore.Create
                : children.size() < permits;
        if (create) {
          String lease = String.format("%032x", leaseId++);
          children.add(lease);
          held.computeIfAbsent(head[0], k -> new ArrayList<>()).add(lease);
          if (++head[2] == head[1]) {
            admission.removeFirst(); // leased: the admission lock is released
            served.add(head[0]);
          }
        }
      } else if (!held.isEmpty()) { // a holder releases everything it holds
        List<Integer> holders = new ArrayList<>(held.keySet());
        int who = holders.get(step % holders.size());
        if (!admission.isEmpty() && admission.peekFirst()[0] == who) {
          continue; // still taking its leases
        }
        children.removeAll(held.remove(who));
      }
      assertThat(children.size()).as("leases held").isLessThanOrEqualTo(permits);
    }
    List<Integer> sorted = new ArrayList<>(served);
    sorted.sort(Integer::compare);
    assertThat(served).as("served in arrival order").isEqualTo(sorted);
  }
}
