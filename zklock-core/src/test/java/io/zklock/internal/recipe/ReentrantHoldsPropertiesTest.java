package io.zklock.internal.recipe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zklock.LockLostException;
import io.zklock.internal.engine.FakeHandle;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

/**
 * The counting rule of the thread-reentrant views as a property: whatever sequence of lock, try,
 * unlock and loss one thread goes through, each hold's handle is acquired once, when the count
 * leaves zero, and released exactly once, when the count returns to zero (or when a re-entry finds
 * it lost); an unlock without a hold is refused and changes nothing.
 */
class ReentrantHoldsPropertiesTest {

  enum Op {
    /** lock(): acquires when not held. */
    LOCK,
    /** tryLock() that would be granted. */
    TRY_GRANTED,
    /** tryLock() that would not be granted (someone else holds). */
    TRY_REFUSED,
    UNLOCK,
    /** the node is deleted by someone else while this thread may hold. */
    LOSE
  }

  @Property(tries = 500)
  void eachHoldAcquiresOnce_andReleasesExactlyWhenTheCountReturnsToZero(
      @ForAll @Size(max = 60) List<Op> ops) {
    ReentrantHolds holds = new ReentrantHolds("Mutex /zklock/p");
    List<FakeHandle> acquired = new ArrayList<>();
    int count = 0; // the model
    boolean lost = false;

    for (Op op : ops) {
      int before = acquired.size();
      int countBefore = count;
      switch (op) {
        case LOCK, TRY_GRANTED, TRY_REFUSED -> {
          boolean grant = op != Op.TRY_REFUSED;
          ReentrantHolds.Acquisition<RuntimeException> acquisition =
              () -> {
                if (!grant) {
                  return null;
                }
                FakeHandle h = new FakeHandle();
                acquired.add(h);
                return h;
              };
          if (count > 0 && lost) {
            assertThatThrownBy(() -> holds.enter(acquisition))
                .as("re-entering a lost hold")
                .isInstanceOf(LockLostException.class);
            count = 0;
            lost = false;
          } else {
            boolean entered = holds.enter(acquisition);
            assertThat(entered).isEqualTo(count > 0 || grant);
            if (entered) {
              count++;
            }
          }
          assertThat(acquired.size() - before)
              .as("an acquisition is made exactly when the count leaves zero")
              .isEqualTo(countBefore == 0 && grant ? 1 : 0);
        }
        case UNLOCK -> {
          if (count == 0) {
            assertThatThrownBy(holds::exit).isExactlyInstanceOf(IllegalMonitorStateException.class);
          } else if (count == 1 && lost) {
            assertThatThrownBy(holds::exit).isInstanceOf(LockLostException.class);
            count = 0;
            lost = false;
          } else {
            holds.exit();
            count--;
          }
        }
        case LOSE -> {
          if (count > 0) {
            acquired.get(acquired.size() - 1).lose();
            lost = true;
          }
        }
      }
      assertThat(holds.holdCount()).as("after %s", op).isEqualTo(count);
      for (int i = 0; i < acquired.size(); i++) {
        boolean current = count > 0 && i == acquired.size() - 1;
        assertThat(acquired.get(i).releases())
            .as("releases of handle %d after %s", i, op)
            .isEqualTo(current ? 0 : 1);
      }
      if (count > 0) {
        assertThat(holds.handle()).isSameAs(acquired.get(acquired.size() - 1));
      } else {
        assertThat(holds.handle()).isNull();
      }
    }
  }
}
