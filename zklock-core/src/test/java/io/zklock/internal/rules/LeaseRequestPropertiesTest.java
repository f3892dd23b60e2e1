package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link Ordering#leaseRequest}: a semaphore request for several permits, all or nothing, on the
 * lease rule; and the algorithm built on it (one admitted request at a time asks for all its
 * leases; granted requests release in any order) against a model: never more permits granted than
 * the semaphore has, and every request is granted in the end.
 */
class LeaseRequestPropertiesTest {

  private static List<QueueNode> queue(int size) {
    List<QueueNode> q = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      String id = String.format("r%011d", i);
      q.add(
          new QueueNode(
              QueueNode.prefix(NodeKind.SEMAPHORE, id) + String.format("%010d", i),
              NodeKind.SEMAPHORE,
              id,
              i,
              0L));
    }
    return q;
  }

  @Property
  void holds_iffEveryLeaseHasFewerThanPermitsAhead(
      @ForAll @IntRange(min = 1, max = 6) int permits,
      @ForAll @IntRange(min = 1, max = 12) int size,
      @ForAll("indexSets") List<Integer> picks) {
    List<QueueNode> q = queue(size);
    int[] indexes = picks.stream().mapToInt(i -> i % size).distinct().toArray();
    Ordering.Decision d = Ordering.leaseRequest(permits, q, indexes);
    int last = Arrays.stream(indexes).max().orElseThrow();
    assertThat(d instanceof Ordering.Hold).isEqualTo(last < permits);
    if (!(d instanceof Ordering.Hold)) {
      assertThat(d).isInstanceOf(Ordering.WatchQueue.class);
    }
    if (indexes.length == 1) {
      assertThat(d.getClass())
          .as("one lease: the lease rule itself")
          .isEqualTo(Ordering.lease(permits).decide(q, indexes[0]).getClass());
    }
  }

  @Provide
  Arbitrary<List<Integer>> indexSets() {
    return Arbitraries.integers().between(0, 100).list().ofMinSize(1).ofMaxSize(6);
  }

  @Property
  void noIndex_orBadPermits_isRefused(@ForAll @IntRange(min = -3, max = 0) int permits) {
    assertThatThrownBy(() -> Ordering.leaseRequest(1, queue(2)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Ordering.leaseRequest(permits, queue(2), 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** A request of the model: its size, its leases' ids once admitted, whether granted. */
  private static final class Req {
    final int size;
    final List<Integer> leases = new ArrayList<>();
    boolean granted;
    boolean done;

    Req(int size) {
      this.size = size;
    }
  }

  @Property(tries = 500)
  void severalPermits_neverOverGranted_andEveryRequestIsGrantedInTheEnd(
      @ForAll @IntRange(min = 1, max = 5) int permits,
      @ForAll("sizes") List<Integer> sizes,
      @ForAll("steps") List<Integer> steps) {
    List<Req> reqs = new ArrayList<>();
    for (int s : sizes) {
      reqs.add(new Req(1 + (s % permits)));
    }
    Deque<Req> admission = new ArrayDeque<>(reqs); // the fair admission mutex, in arrival order
    List<Integer> leaseQueue = new ArrayList<>(); // live lease ids, in creation order
    int[] nextId = {0};
    Req[] admitted = {null};

    Runnable decide =
        () -> {
          while (true) {
            if (admitted[0] == null) {
              if (admission.isEmpty()) {
                return;
              }
              admitted[0] = admission.poll();
              for (int i = 0; i < admitted[0].size; i++) { // asks for all its leases at once
                admitted[0].leases.add(nextId[0]);
                leaseQueue.add(nextId[0]++);
              }
            }
            Req r = admitted[0];
            int[] idx = r.leases.stream().mapToInt(leaseQueue::indexOf).toArray();
            if (!(Ordering.leaseRequest(permits, queue(leaseQueue.size()), idx)
                instanceof Ordering.Hold)) {
              return; // waits for the queue to change
            }
            r.granted = true;
            admitted[0] = null; // releases the admission mutex: the next one comes in
          }
        };

    decide.run();
    for (int step : steps) {
      List<Req> holding = reqs.stream().filter(r -> r.granted && !r.done).toList();
      assertThat(holding.stream().mapToInt(r -> r.size).sum())
          .as("permits granted at once")
          .isLessThanOrEqualTo(permits);
      if (!holding.isEmpty()) {
        Req out = holding.get(step % holding.size());
        out.done = true;
        leaseQueue.removeAll(out.leases);
      }
      decide.run();
    }
    // then holders keep releasing: nobody may be stuck
    for (int round = 0; round <= reqs.size(); round++) {
      for (Req r : reqs) {
        if (r.granted && !r.done) {
          r.done = true;
          leaseQueue.removeAll(r.leases);
        }
      }
      decide.run();
    }
    assertThat(reqs).allMatch(r -> r.granted, "every request granted in the end");
  }

  @Provide
  Arbitrary<List<Integer>> sizes() {
    return Arbitraries.integers().between(0, 100).list().ofMinSize(1).ofMaxSize(10);
  }

  @Provide
  Arbitrary<List<Integer>> steps() {
    return Arbitraries.integers().between(0, 1000).list().ofMaxSize(30);
  }
}
