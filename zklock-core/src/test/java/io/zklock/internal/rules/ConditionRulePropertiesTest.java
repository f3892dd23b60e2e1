package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The condition's wake rule: a signal wakes the earliest waiter in arrival order, a signalAll every
 * waiter in arrival order, across the server's sequence wrap-around; other children are ignored.
 */
class ConditionRulePropertiesTest {

  private static String waiter(int i, int sequence) {
    return ConditionRule.WAITER_PREFIX + "att" + i + "-" + String.format("%010d", sequence);
  }

  /**
   * Waiters that arrived in order from {@code start} (wrapping past Integer.MAX_VALUE), shuffled.
   */
  private static List<String> arrivals(int start, int n, long seed, List<String> inOrder) {
    for (int i = 0; i < n; i++) {
      inOrder.add(waiter(i, start + i)); // int overflow wraps, as the server's counter does
    }
    List<String> shuffled = new ArrayList<>(inOrder);
    Collections.shuffle(shuffled, new Random(seed));
    shuffled.add("not-a-waiter");
    return shuffled;
  }

  @Property
  void signal_wakesExactlyTheEarliestArrival(
      @ForAll int start, @ForAll @IntRange(min = 0, max = 40) int n, @ForAll long seed) {
    List<String> inOrder = new ArrayList<>();
    List<String> children = arrivals(start, n, seed, inOrder);
    List<String> woken = ConditionRule.toSignal(children, false);
    if (n == 0) {
      assertThat(woken).as("nobody waits: nobody woken").isEmpty();
    } else {
      assertThat(woken)
          .as("one waiter, the first to arrive: no herd")
          .containsExactly(inOrder.get(0));
    }
  }

  @Property
  void signalAll_wakesEveryWaiter_inArrivalOrder(
      @ForAll int start, @ForAll @IntRange(min = 0, max = 40) int n, @ForAll long seed) {
    List<String> inOrder = new ArrayList<>();
    List<String> children = arrivals(start, n, seed, inOrder);
    assertThat(ConditionRule.toSignal(children, true)).containsExactlyElementsOf(inOrder);
  }

  @Property
  void repeatedSignals_wakeInArrivalOrder_eachOnce(
      @ForAll int start, @ForAll @IntRange(min = 1, max = 30) int n, @ForAll long seed) {
    List<String> inOrder = new ArrayList<>();
    List<String> children = new ArrayList<>(arrivals(start, n, seed, inOrder));
    List<String> woken = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      List<String> one = ConditionRule.toSignal(children, false);
      assertThat(one).hasSize(1);
      woken.add(one.get(0));
      children.remove(one.get(0)); // a signal deletes the node
    }
    assertThat(woken).containsExactlyElementsOf(inOrder);
    assertThat(ConditionRule.toSignal(children, false)).isEmpty();
  }

  @Property
  void waiterNodes_areNeverTakenForLockNodes_byInspection(
      @ForAll int sequence, @ForAll @IntRange(min = 0, max = 1000) int i) {
    String name =
        ConditionRule.WAITER_PREFIX
            + QueueNode.newAttemptId()
            + "-"
            + String.format("%010d", sequence);
    assertThat(ConditionRule.parse(name)).isNotNull();
    assertThat(QueueNode.parse(name)).as("a lock directory's listing skips it").isNull();
  }

  @Example
  void wrapAround_theWaiterBeforeTheOverflow_isEarlier() {
    String before = waiter(1, Integer.MAX_VALUE);
    String after = waiter(2, Integer.MIN_VALUE);
    assertThat(ConditionRule.toSignal(List.of(after, before), false)).containsExactly(before);
  }
}
