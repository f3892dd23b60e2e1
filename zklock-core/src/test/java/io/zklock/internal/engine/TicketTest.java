package io.zklock.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.internal.rules.Clock;
import io.zklock.internal.rules.RandomIds;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.rules.WallClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * {@link Ticket}: a caller's future completes on the library's executor, so its callbacks never run
 * on the thread that grants (ZooKeeper's event thread); only a future declared to have nobody but a
 * blocked caller waiting on it is completed at once, on the granting thread.
 */
class TicketTest {

  /** Runs what it is given only when told. */
  private static final class HeldExecutor implements Executor {
    final List<Runnable> tasks = new ArrayList<>();

    @Override
    public void execute(Runnable r) {
      tasks.add(r);
    }

    void runAll() {
      while (!tasks.isEmpty()) {
        tasks.remove(0).run();
      }
    }
  }

  private static RequestContext context(Executor executor) {
    return new RequestContext(
        null,
        null,
        null,
        null,
        null,
        null,
        List.of(),
        null,
        Clock.SYSTEM,
        executor,
        null,
        Events.NONE,
        RandomIds.SECURE,
        WallClock.SYSTEM);
  }

  @Test
  void grant_ofAnAsyncCallersFuture_completesOnTheExecutor_notOnTheGrantingThread() {
    HeldExecutor executor = new HeldExecutor();
    Ticket ticket = new Ticket(context(executor), Waiting.FOREVER);
    List<Thread> ranOn = new ArrayList<>();
    ticket.result.thenRun(() -> ranOn.add(Thread.currentThread()));
    FakeHandle handle = new FakeHandle();

    ticket.grant(handle);

    assertThat(ticket.result).as("not completed by the granting thread").isNotDone();
    executor.runAll();
    assertThat(ticket.result).isCompletedWithValue(handle);
    assertThat(ranOn).hasSize(1);
  }

  @Test
  void grant_ofABlockedCallersFuture_completesAtOnce() {
    HeldExecutor executor = new HeldExecutor();
    Ticket ticket = new Ticket(context(executor), Waiting.FOREVER);
    FakeHandle handle = new FakeHandle();
    Ticket.blockedCallerOnly(ticket.result);

    ticket.grant(handle);

    assertThat(ticket.result).as("woken without the executor").isCompletedWithValue(handle);
    assertThat(executor.tasks).isEmpty();
    assertThat(handle.released).isZero();
  }

  @Test
  void grant_ofABlockedCallersFuture_afterItGaveUp_releasesTheHandle_onTheExecutor() {
    HeldExecutor executor = new HeldExecutor();
    Ticket ticket = new Ticket(context(executor), Waiting.FOREVER);
    FakeHandle handle = new FakeHandle();
    Ticket.blockedCallerOnly(ticket.result);
    ticket.result.cancel(true); // the blocked caller was interrupted

    ticket.grant(handle);

    assertThat(handle.released).as("not released on the granting thread").isZero();
    executor.runAll();
    assertThat(handle.released).as("the grant nobody will see is given back").isEqualTo(1);
  }

  @Test
  void blockedCallerOnly_ofAnotherFuture_changesNothing() {
    CompletableFuture<LockHandle> other = new CompletableFuture<>();
    Ticket.blockedCallerOnly(other);
    assertThat(other).isNotDone();
  }

  private static final class FakeHandle implements LockHandle {
    int released;

    @Override
    public CompletableFuture<Void> releaseAsync() {
      released++;
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void release() {
      releaseAsync();
    }

    @Override
    public void close() {
      release();
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
    public String lockName() {
      return "l";
    }

    @Override
    public String path() {
      return "/l/m-1";
    }

    @Override
    public long fencingToken() {
      return 1;
    }

    @Override
    public boolean isHeld() {
      return released == 0;
    }

    @Override
    public CompletableFuture<LockLostException> lost() {
      return new CompletableFuture<>();
    }
  }
}
