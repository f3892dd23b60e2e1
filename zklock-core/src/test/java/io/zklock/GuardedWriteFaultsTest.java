package io.zklock;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;

/**
 * Guarded writes ({@link LockHandle#transaction()}) under the faults that end a grant: the holder's
 * session expires, its node is force-released, its lease runs out. A writer commits in a loop while
 * the fault strikes; every write it committed must be ordered inside its hold (its {@code mzxid}
 * below the zxid of the lock node's deletion, read as the lock directory's {@code pzxid} while a
 * waiter keeps the directory), and the first write after it is refused with the reason.
 */
class GuardedWriteFaultsTest extends ZkTestSupport {

  private String data;

  @BeforeEach
  void dataNode() throws Exception {
    data = "/data" + namespace;
    try {
      raw().create("/data", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    } catch (KeeperException.NodeExistsException e) {
      // made by an earlier test
    }
    raw().create(data, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
  }

  /** What the writer saw: the zxids of its committed writes, and how it stopped. */
  private static final class Writer implements Runnable {
    final LockHandle held;
    final String path;
    final List<Long> committed = new CopyOnWriteArrayList<>();
    final CompletableFuture<RuntimeException> stopped = new CompletableFuture<>();

    Writer(LockHandle held, String path) {
      this.held = held;
      this.path = path;
    }

    @Override
    public void run() {
      for (int i = 0; ; i++) {
        try {
          GuardedTransaction.Result r =
              held.transaction().setData(path, ("w" + i).getBytes(UTF_8)).commit().get(0);
          committed.add(r.stat().mzxid());
        } catch (RuntimeException e) {
          stopped.complete(e);
          return;
        }
      }
    }
  }

  /**
   * Holds {@code lock} with a writer looping on it and a waiter of another session queued behind,
   * strikes with {@code fault}, and checks the writer's commits against the hold's end.
   */
  private int committed;

  private RuntimeException writeThrough(DistributedLock lock, LockHandle held, Runnable fault)
      throws Exception {
    CompletableFuture<LockHandle> waiter = client("waiter").mutex("job").acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);
    long czxid = held.fencingToken();
    Writer w = new Writer(held, data);
    Thread t = new Thread(w, "guarded-writer");
    t.start();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> w.committed.size() >= 3 || w.stopped.isDone());

    fault.run();

    RuntimeException stop = w.stopped.get(20, TimeUnit.SECONDS);
    t.join(10_000);
    LockHandle next = waiter.get(20, TimeUnit.SECONDS);
    // the waiter's node is the only child left: the directory's last child change is the deletion
    long holdEnd = raw().exists(dir("job"), false).getPzxid();
    assertThat(holdEnd).isGreaterThan(czxid);
    assertThat(w.committed)
        .as("every committed guarded write is inside the hold [%s, %s]", czxid, holdEnd)
        .allSatisfy(z -> assertThat(z).isGreaterThan(czxid).isLessThan(holdEnd));
    // and the other holder's guarded write commits
    next.transaction().setData(data, "next".getBytes(UTF_8)).commit();
    next.release();
    committed = w.committed.size();
    return stop;
  }

  @RepeatedTest(3)
  void sessionExpires_whileWriting_noWriteAfterTheHoldEnds() throws Exception {
    ZkLocks holder = client("holder");
    DistributedLock lock = holder.mutex("job");
    LockHandle held = lock.acquire();

    RuntimeException stop =
        writeThrough(lock, held, () -> server.expireSession(holder.sessionId()));

    // a commit in flight when the server closed the connection has an unknown outcome, and says
    // so; one sent after is refused
    if (stop instanceof LockLostException lost) {
      assertThat(lost.reason()).isEqualTo(LockLostException.Reason.SESSION_EXPIRED);
    } else {
      assertThat(stop)
          .isExactlyInstanceOf(ZkLockException.class)
          .hasMessageContaining("may or may not have been committed");
    }
    held.lost().get(20, TimeUnit.SECONDS);
    assertThatThrownBy(() -> held.transaction().setData(data, "late".getBytes(UTF_8)).commit())
        .isInstanceOf(LockLostException.class)
        .extracting(e -> ((LockLostException) e).reason())
        .isEqualTo(LockLostException.Reason.SESSION_EXPIRED);
    assertThat(new String(raw().getData(data, false, null), UTF_8)).isEqualTo("next");
  }

  @RepeatedTest(3)
  void forceReleased_whileWriting_refusedWithNodeDeleted() throws Exception {
    ZkLocks holder = client("holder");
    DistributedLock lock = holder.mutex("job");
    LockHandle held = lock.acquire();
    ZkLocks operator = client("operator");

    RuntimeException stop =
        writeThrough(
            lock,
            held,
            () ->
                assertThat(
                        operator.forceRelease(holder.inspect("job").orElseThrow().holders().get(0)))
                    .isTrue());

    assertThat(stop).isInstanceOf(LockLostException.class);
    assertThat(((LockLostException) stop).reason())
        .isEqualTo(LockLostException.Reason.NODE_DELETED);
    assertThat(new String(raw().getData(data, false, null), UTF_8)).isEqualTo("next");
  }

  @RepeatedTest(3)
  void leaseRunsOut_whileWriting_refusedWithLeaseExpired() throws Exception {
    ZkLocks holder = client("holder");
    // A lease long enough for the waiter to queue and the writer to commit on any machine; the
    // fault shortens it once writes are committing. (A 1 s lease from the grant could run out on
    // a loaded machine before the waiter had queued, and nothing was written inside it.)
    DistributedLock lock = holder.mutex("job").withLease(Duration.ofMinutes(1));
    LockHandle held = lock.acquire();

    RuntimeException stop =
        writeThrough(
            lock,
            held,
            () -> assertThat(held.extend(Duration.ofMillis(300))).as("lease shortened").isTrue());

    assertThat(stop).isInstanceOf(LockLostException.class);
    assertThat(((LockLostException) stop).reason())
        .isEqualTo(LockLostException.Reason.LEASE_EXPIRED);
    assertThat(committed).as("writes committed before the lease ran out").isPositive();
    assertThat(new String(raw().getData(data, false, null), UTF_8)).isEqualTo("next");
  }
}
