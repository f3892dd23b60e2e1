package io.zklock.internal.recipe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.internal.engine.FakeHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The per-thread hold counting that every thread-reentrant view ({@code asLock()}, the read and the
 * write side of {@code asReadWriteLock()}) uses, without a server: fake handles count releases.
 */
class ReentrantHoldsTest {
  private final ReentrantHolds holds = new ReentrantHolds("Mutex /zklock/x");
  private final AtomicInteger acquisitions = new AtomicInteger();

  private FakeHandle acquire() {
    acquisitions.incrementAndGet();
    return new FakeHandle();
  }

  @Test
  void reentry_countsWithoutAcquiring_andKeepsTheFirstHandle() {
    FakeHandle first = new FakeHandle();
    assertThat(holds.enter(() -> first)).isTrue();
    assertThat(holds.enter(this::acquire)).isTrue();
    assertThat(holds.enter(this::acquire)).isTrue();

    assertThat(acquisitions).as("nested enters do not acquire").hasValue(0);
    assertThat(holds.handle()).as("the first handle, so the first fencing token").isSameAs(first);
    assertThat(holds.holdCount()).isEqualTo(3);
  }

  @Test
  void exit_onlyTheLastReleases() {
    FakeHandle h = enterTwice();

    holds.exit();
    assertThat(h.releases()).as("one hold left").isZero();
    assertThat(holds.isHeldByCurrentThread()).isTrue();
    holds.exit();
    assertThat(h.releases()).as("the last exit releases, once").isEqualTo(1);
    assertThat(holds.isHeldByCurrentThread()).isFalse();
    assertThat(holds.handle()).isNull();
  }

  @Test
  void enter_whenTheAcquisitionGivesNothing_holdsNothing() {
    assertThat(holds.enter(() -> null)).isFalse();
    assertThat(holds.holdCount()).isZero();
    assertThatThrownBy(holds::exit).isInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  void enter_whenTheAcquisitionThrows_holdsNothing_andPassesItOn() {
    assertThatThrownBy(
            () ->
                holds.enter(
                    () -> {
                      throw new InterruptedException("interrupted while waiting");
                    }))
        .isInstanceOf(InterruptedException.class);
    assertThat(holds.isHeldByCurrentThread()).isFalse();
  }

  @Test
  void exit_byAThreadThatDoesNotHold_throwsIllegalMonitorState_namingTheLockAndTheHolder()
      throws Exception {
    FakeHandle h = new FakeHandle();
    holds.enter(() -> h);

    CompletableFuture<Throwable> other = CompletableFuture.supplyAsync(() -> exitCatching(holds));
    assertThat(other.get(10, TimeUnit.SECONDS))
        .isExactlyInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining("Mutex /zklock/x")
        .hasMessageContaining("held by " + Thread.currentThread().getName());
    assertThat(holds.holdCount()).as("the holder's count is untouched").isEqualTo(1);
    assertThat(h.releases()).isZero();
    holds.exit();
    assertThat(h.releases()).isEqualTo(1);
  }

  @Test
  void exit_whenNothingIsHeld_saysUnlocked() {
    assertThatThrownBy(holds::exit)
        .isExactlyInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining("unlocked");
  }

  @Test
  void threads_holdApart_eachWithItsHandleAndCount() throws Exception {
    FakeHandle mine = new FakeHandle();
    holds.enter(() -> mine);
    holds.enter(this::acquire);
    FakeHandle theirs = new FakeHandle();

    CompletableFuture<Integer> other =
        CompletableFuture.supplyAsync(
            () -> {
              holds.enter(() -> theirs);
              int count = holds.holdCount();
              LockHandle seen = holds.handle();
              holds.exit();
              return seen == theirs ? count : -1;
            });
    assertThat(other.get(10, TimeUnit.SECONDS))
        .as("the other thread acquired its own handle, once")
        .isEqualTo(1);
    assertThat(theirs.releases()).as("its exit released its handle").isEqualTo(1);
    assertThat(holds.holdCount()).as("this thread's holds are its own").isEqualTo(2);
    assertThat(mine.releases()).isZero();
  }

  @Test
  void describeHolders_saysWhoHolds() throws Exception {
    assertThat(holds.describeHolders()).isEqualTo("unlocked");
    holds.enter(FakeHandle::new);
    assertThat(holds.describeHolders()).isEqualTo("held by " + Thread.currentThread().getName());
    CompletableFuture<String> withTwo =
        CompletableFuture.supplyAsync(
            () -> {
              holds.enter(FakeHandle::new);
              String d = holds.describeHolders();
              holds.exit();
              return d;
            });
    assertThat(withTwo.get(10, TimeUnit.SECONDS)).isEqualTo("held by 2 threads");
  }

  @Test
  void reentry_afterTheHandleWasLost_throwsLockLost_releasesIt_andClearsTheHold() {
    FakeHandle h = enterTwice();
    h.lose();

    assertThatThrownBy(() -> holds.enter(this::acquire))
        .isInstanceOf(LockLostException.class)
        .satisfies(
            e ->
                assertThat(((LockLostException) e).reason())
                    .isEqualTo(LockLostException.Reason.NODE_DELETED));
    assertThat(acquisitions).as("a lost hold is not replaced by a new acquisition").hasValue(0);
    assertThat(h.releases()).as("what the lost handle kept is given back").isEqualTo(1);
    assertThat(holds.isHeldByCurrentThread()).as("the hold is cleared").isFalse();
    assertThatThrownBy(holds::exit)
        .as("the thread's later exits are refused too")
        .isExactlyInstanceOf(IllegalMonitorStateException.class);

    assertThat(holds.enter(this::acquire)).as("a fresh acquisition works").isTrue();
    assertThat(acquisitions).hasValue(1);
  }

  @Test
  void lastExit_afterTheHandleWasLost_releases_andThrowsLockLost() {
    FakeHandle h = enterTwice();
    h.lose();

    holds.exit(); // not the last: counts down, as on a held lock
    assertThatThrownBy(holds::exit)
        .as("the critical section was not protected to the end")
        .isInstanceOf(LockLostException.class);
    assertThat(h.releases()).isEqualTo(1);
    assertThat(holds.isHeldByCurrentThread()).isFalse();
  }

  /** The current thread enters twice; returns the handle its first entry acquired. */
  private FakeHandle enterTwice() {
    FakeHandle h = new FakeHandle();
    holds.enter(() -> h);
    holds.enter(this::acquire);
    return h;
  }

  private static Throwable exitCatching(ReentrantHolds holds) {
    try {
      holds.exit();
      return null;
    } catch (Throwable t) {
      return t;
    }
  }
}
