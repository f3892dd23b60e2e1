package io.zklock.internal.recipe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ZkLockException;
import io.zklock.ZkLocks;
import io.zklock.ZkTestSupport;
import io.zklock.internal.Internals;
import io.zklock.internal.LibraryThreads;
import io.zklock.internal.engine.Handle;
import io.zklock.internal.rules.Waiting;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * When a multi-lock answers (issue 33, docs/guarantees.md point 7): "granted means held, failed
 * means nothing held". The parts are fakes whose grants and releases the test hands out, so each
 * release's acknowledgement is held back until the test gives it; the multi-lock itself runs on a
 * real instance (its executor and clock), whose executor the test drains ({@link LibraryThreads})
 * before deciding that the multi-lock has not answered. Each test records what held at the moment
 * the caller's future completed, so an early answer fails every time.
 */
class MultiLockReturnOrderTest extends ZkTestSupport {

  /** A handle whose release is acknowledged only when the test says ({@link #acknowledge}). */
  static final class HeldBackHandle implements Handle {
    final String path;
    final CompletableFuture<Void> released = new CompletableFuture<>();
    final CompletableFuture<LockLostException> lost = new CompletableFuture<>();
    final AtomicBoolean releaseStarted = new AtomicBoolean();
    volatile boolean held = true;

    HeldBackHandle(String path) {
      this.path = path;
    }

    void acknowledge() {
      released.complete(null);
    }

    @Override
    public String lockName() {
      return path;
    }

    @Override
    public String path() {
      return path;
    }

    @Override
    public long fencingToken() {
      return 1L;
    }

    @Override
    public boolean isHeld() {
      return held && !releaseStarted.get();
    }

    @Override
    public CompletableFuture<LockLostException> lost() {
      return lost;
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
    public CompletableFuture<Void> releaseAsync() {
      releaseStarted.set(true);
      return released;
    }
  }

  /** A part whose requests the test answers: each {@link #start} hands out a new future. */
  static final class FakePart implements LockPart {
    @Override
    public String eventKind() {
      return "fake";
    }

    final RecipeContext ctx;
    final String dir;
    final List<CompletableFuture<LockHandle>> starts = new CopyOnWriteArrayList<>();

    FakePart(RecipeContext ctx, String dir) {
      this.ctx = ctx;
      this.dir = dir;
    }

    CompletableFuture<LockHandle> last() {
      return starts.get(starts.size() - 1);
    }

    HeldBackHandle grant() {
      HeldBackHandle h = new HeldBackHandle(dir + "/m-" + starts.size());
      last().complete(h);
      return h;
    }

    @Override
    public String sortKey() {
      return dir;
    }

    @Override
    public String dir() {
      return dir;
    }

    @Override
    public String name() {
      return dir;
    }

    @Override
    public RecipeContext ctx() {
      return ctx;
    }

    @Override
    public CompletableFuture<LockHandle> start(Waiting waiting) {
      CompletableFuture<LockHandle> f = new CompletableFuture<>();
      starts.add(f);
      return f;
    }

    @Override
    public Lock asLock() {
      throw new UnsupportedOperationException();
    }

    @Override
    public io.zklock.DistributedCondition newCondition(String name) {
      throw new UnsupportedOperationException();
    }
  }

  private ZkLocks locks;
  private RecipeContext ctx;
  private FakePart a;
  private FakePart b;
  private CompletableFuture<LockHandle> result;

  private void startTry() {
    locks = client();
    ctx = Internals.recipes(locks);
    a = new FakePart(ctx, "/a");
    b = new FakePart(ctx, "/b");
    result = MultiLock.of(ctx, b, a).start(Waiting.NOW); // canonical order: a, then b
  }

  @Test
  void failedTryAcquire_secondPartBusy_answersOnlyOnceTheFirstPartsReleaseIsAcknowledged()
      throws Exception {
    startTry();
    AtomicReference<Boolean> releasedAtAnswer = new AtomicReference<>();
    HeldBackHandle first = a.grant();
    // the check runs on the thread that completes the result, possibly after a get() returned:
    // wait for it (answered) before reading what it saw
    CompletableFuture<LockHandle> answered =
        result.whenComplete((h, t) -> releasedAtAnswer.set(first.released.isDone()));

    // When the second part is busy: the multi-lock gives the first back
    b.last().complete(null);
    await().atMost(Duration.ofSeconds(10)).untilTrue(first.releaseStarted);
    LibraryThreads.drain(locks);

    // Then it has not answered while that release is unacknowledged ...
    assertThat(result).as("answered while the part it took was still held").isNotDone();
    first.acknowledge();

    // ... and answers (empty) once it is
    assertThat(result.get(10, java.util.concurrent.TimeUnit.SECONDS)).isNull();
    answered.get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(releasedAtAnswer.get())
        .as("the first part's release was acknowledged when the failure was answered")
        .isTrue();
  }

  @Test
  void failedTryAcquire_secondPartFails_answersTheFailureOnlyOnceTheFirstPartIsReleased()
      throws Exception {
    startTry();
    AtomicReference<Boolean> releasedAtAnswer = new AtomicReference<>();
    HeldBackHandle first = a.grant();
    // the check runs on the thread that completes the result, possibly after a get() returned:
    // wait for it (answered) before reading what it saw
    CompletableFuture<LockHandle> answered =
        result.whenComplete((h, t) -> releasedAtAnswer.set(first.released.isDone()));

    b.last().completeExceptionally(new ZkLockException("refused", "/b", 0L, null));
    await().atMost(Duration.ofSeconds(10)).untilTrue(first.releaseStarted);
    LibraryThreads.drain(locks);

    assertThat(result).as("answered while the part it took was still held").isNotDone();
    first.acknowledge();
    await().atMost(Duration.ofSeconds(10)).until(result::isDone);
    assertThat(result).isCompletedExceptionally();
    answered.handle((h, t) -> null).get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(releasedAtAnswer.get())
        .as("the first part's release was acknowledged when the failure was answered")
        .isTrue();
  }

  @Test
  void grant_handsOverTheSetOnlyIfEveryPartIsHeldAtThatMoment() throws Exception {
    startTry();
    HeldBackHandle first = a.grant();
    AtomicReference<String> atAnswer = new AtomicReference<>();
    result.whenComplete(
        (h, t) ->
            atAnswer.set(h == null ? "no handle" : "handle, first part held: " + first.isHeld()));

    // Given the library's threads busy, so the set is handed over only after what follows
    LibraryThreads.Held busy = LibraryThreads.hold(locks);
    try {
      // When the last part is granted, and the first one stops being held before the handover
      // (isHeld() turns false a round trip before lost() completes)
      b.grant();
      first.held = false;
    } finally {
      busy.release();
    }
    LibraryThreads.drain(locks);

    // Then no handle was handed over with a part that was not held
    assertThat(atAnswer.get())
        .as("what the caller got")
        .isNotEqualTo("handle, first part held: false");
    assertThat(result).as("a set with a part not held is not handed over").isNotDone();
    assertThat(first.releaseStarted).as("the set is given back").isTrue();
  }

  @Test
  void partLost_whileWaitingForTheNext_startsAgainOnlyOnceThePartsItTookAreReleased()
      throws Exception {
    locks = client();
    ctx = Internals.recipes(locks);
    a = new FakePart(ctx, "/a");
    b = new FakePart(ctx, "/b");
    result = MultiLock.of(ctx, a, b).start(Waiting.FOREVER);
    HeldBackHandle first = a.grant();
    assertThat(b.starts).hasSize(1);

    // When the first part is lost while the second is awaited
    first.held = false;
    first.lost.complete(
        new LockLostException(first.path, 1L, LockLostException.Reason.NODE_DELETED));
    await().atMost(Duration.ofSeconds(10)).untilTrue(first.releaseStarted);
    LibraryThreads.drain(locks);

    // Then the second request is withdrawn, and the first part is not asked for again while its
    // release is unacknowledged
    assertThat(b.last()).as("the request for the second part is withdrawn").isCancelled();
    assertThat(a.starts).as("started again before the lost round was given back").hasSize(1);
    first.acknowledge();
    await().atMost(Duration.ofSeconds(10)).until(() -> a.starts.size() == 2);
    assertThat(result).isNotDone();
    result.cancel(true);
  }
}
