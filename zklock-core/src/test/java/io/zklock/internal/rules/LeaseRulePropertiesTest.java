package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The semaphore's lease rule, {@link Ordering#lease(int)}, against a model of the algorithm: each
 * request creates its lease, later lists the queue and decides on that (possibly stale) listing,
 * and holders release in any order. Whatever the interleaving, at most {@code permits} hold.
 */
class LeaseRulePropertiesTest {

  private enum St {
    NEW,
    CREATED,
    HELD,
    DONE
  }

  @Provide
  Arbitrary<List<Integer>> steps() {
    return Arbitraries.integers().between(0, 10_000).list().ofMinSize(1).ofMaxSize(200);
  }

  @Property
  void lease_neverMoreHoldersThanPermits_anyInterleaving(
      @ForAll @IntRange(min = 1, max = 5) int permits,
      @ForAll @IntRange(min = 1, max = 12) int requests,
      @ForAll("steps") List<Integer> steps) {
    Ordering.Rule rule = Ordering.lease(permits);
    List<QueueNode> queue = new ArrayList<>(); // live leases, in creation order
    Map<Integer, QueueNode> nodes = new HashMap<>();
    St[] st = new St[requests];
    java.util.Arrays.fill(st, St.NEW);
    int seq = 0;
    for (int step : steps) {
      int r = step % requests;
      int action = (step / requests) % 3;
      switch (st[r]) {
        case NEW:
          QueueNode n =
              new QueueNode(
                  QueueNode.prefix(NodeKind.SEMAPHORE, "r" + String.format("%011d", r))
                      + String.format("%010d", seq),
                  NodeKind.SEMAPHORE,
                  "r" + String.format("%011d", r),
                  seq++,
                  0L);
          nodes.put(r, n);
          queue.add(n);
          st[r] = St.CREATED;
          break;
        case CREATED:
          int index = queue.indexOf(nodes.get(r));
          Ordering.Decision d = rule.decide(List.copyOf(queue), index);
          assertThat(d instanceof Ordering.Hold).isEqualTo(index < permits);
          if (d instanceof Ordering.Hold) {
            st[r] = St.HELD;
          } else {
            assertThat(d).isInstanceOf(Ordering.WatchQueue.class);
          }
          break;
        case HELD:
          if (action == 0) {
            queue.remove(nodes.get(r));
            st[r] = St.DONE;
          }
          break;
        default:
          break;
      }
      long held = java.util.Arrays.stream(st).filter(s -> s == St.HELD).count();
      assertThat(held).as("holders with %d permits", permits).isLessThanOrEqualTo(permits);
    }
  }

  @Property
  void lease_permitsBelowOne_areRefused(@ForAll @IntRange(min = -5, max = 0) int permits) {
    assertThatThrownBy(() -> Ordering.lease(permits))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(String.valueOf(permits));
  }
}
