package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The public face of the per-thread hold counter of {@link DistributedLock#asLock()}. */
class ThreadHoldsTest {
  /** A handle that counts its releases and can be lost. */
  private static final class Handle implements LockHandle {
    final AtomicInteger releases = new AtomicInteger();
    final CompletableFuture<LockLostException> lost = new CompletableFuture<>();
    volatile boolean held = true;

    void lose() {
      held = false;
      lost.complete(
          new LockLostException("/zklock/x/m-1", 7L, LockLostException.Reason.SESSION_EXPIRED));
    }

    @Override
    public String lockName() {
      return "x";
    }

    @Override
    public String path() {
      return "/zklock/x/m-1";
    }

    @Override
    public long fencingToken() {
      return 42;
    }

    @Override
    public boolean isHeld() {
      return held;
    }

    @Override
    public CompletableFuture<LockLostException> lost() {
      return lost;
    }

    @Override
    public void release() {
      held = false;
      releases.incrementAndGet();
    }

    @Override
    public CompletableFuture<Void> releaseAsync() {
      release();
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void onReleaseRequested(Runnable action) {
      // nobody asks a fake to release
    }

    @Override
    public boolean isReleaseRequested() {
      return false;
    }

    @Override
    public boolean extend(java.time.Duration lease) {
      throw new IllegalStateException("a fake grant has no lease");
    }

    @Override
    public io.zklock.GuardedTransaction transaction() {
      throw new UnsupportedOperationException("a fake grant guards no writes");
    }

    @Override
    public void close() {
      release();
    }
  }

  @Test
  void enter_acquiresOnce_countsReentries_lastExitReleases() {
    ThreadHolds holds = new ThreadHolds("x");
    Handle h = new Handle();
    AtomicInteger acquisitions = new AtomicInteger();
    ThreadHolds.Acquisition<RuntimeException> acquire =
        () -> {
          acquisitions.incrementAndGet();
          return h;
        };

    assertThat(holds.enter(acquire)).isTrue();
    assertThat(holds.enter(acquire)).isTrue();
    assertThat(acquisitions).hasValue(1);
    assertThat(holds.holdCount()).isEqualTo(2);
    assertThat(holds.handle()).isSameAs(h);
    assertThat(holds.isHeld()).isTrue();

    holds.exit();
    assertThat(h.releases).as("an inner exit only counts down").hasValue(0);
    holds.exit();
    assertThat(h.releases).hasValue(1);
    assertThat(holds.isHeldByCurrentThread()).isFalse();
    assertThat(holds.isHeld()).isFalse();
    assertThat(holds.handle()).isNull();
  }

  @Test
  void enter_notGranted_holdsNothing() {
    ThreadHolds holds = new ThreadHolds("x");
    assertThat(holds.enter(() -> null)).isFalse();
    assertThat(holds.holdCount()).isZero();
  }

  @Test
  void exit_byAThreadThatDoesNotHold_isIllegalMonitorState_namingTheLock() throws Exception {
    ThreadHolds holds = new ThreadHolds("orders/42");
    holds.enter(Handle::new);
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread other = new Thread(() -> thrown.set(catching(holds::exit)));
    other.start();
    other.join();
    assertThat(thrown.get())
        .isExactlyInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining("orders/42");
    assertThat(holds.holdCount()).isEqualTo(1);
  }

  @Test
  void lostHold_reentryThrowsTheLoss_andClearsTheHold() {
    ThreadHolds holds = new ThreadHolds("x");
    Handle h = new Handle();
    holds.enter(() -> h);
    h.lose();

    assertThatThrownBy(() -> holds.enter(Handle::new))
        .isInstanceOf(LockLostException.class)
        .satisfies(
            e ->
                assertThat(((LockLostException) e).reason())
                    .isEqualTo(LockLostException.Reason.SESSION_EXPIRED));
    assertThat(holds.holdCount()).isZero();
    assertThatThrownBy(holds::exit).isExactlyInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  void lostHold_lastExitThrowsTheLoss() {
    ThreadHolds holds = new ThreadHolds("x");
    Handle h = new Handle();
    holds.enter(() -> h);
    holds.enter(() -> h);
    h.lose();

    holds.exit(); // inner: counts down
    assertThatThrownBy(holds::exit).isInstanceOf(LockLostException.class);
    assertThat(holds.isHeld()).isFalse();
  }

  private static Throwable catching(Runnable r) {
    try {
      r.run();
      return null;
    } catch (Throwable t) {
      return t;
    }
  }
}
