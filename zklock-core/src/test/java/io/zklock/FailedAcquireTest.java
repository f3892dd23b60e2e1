package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.testkit.FaultProxy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * "Nothing returned as failed while parts are still held": when a timed acquisition returns empty,
 * every node it held is already deleted. The failing client talks through a proxy that delays each
 * direction by 200 ms, so a delete merely sent when the failure is returned would still be on its
 * way to the server (it would be seen below).
 *
 * <p>Two margins keep this about the library, not the machine's load. The deadlines leave the
 * requests time to be waiting when they pass, several round trips after their creates were sent (a
 * request whose create is still in flight at its deadline answers at once by design, its node
 * deleted in the background). And the delete of a waiter that gave up is waited for up to four of
 * the round trips its create took (at least one second): a connection that slow is not silent.
 */
class FailedAcquireTest extends ZkTestSupport {
  private static final Duration DELAY = Duration.ofMillis(200);
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  /** A client whose every packet is delayed by {@link #DELAY} each way. */
  private ZkLocks slowClient() {
    FaultProxy proxy = track(FaultProxy.start(server.connectString()));
    ZkLocks c =
        track(
            ZkLocks.builder(proxy.connectString())
                .namespace(namespace)
                .sessionTimeout(Duration.ofSeconds(10))
                .connectTimeout(Duration.ofSeconds(10))
                .clientName("slow")
                .build());
    proxy.delay(DELAY);
    return c;
  }

  @Test
  void mutexTryAcquireTimesOut_itsWaitingNodeIsGoneWhenItReturns() throws Exception {
    // Given another session holds the mutex
    LockHandle a = client().mutex("m").acquire();
    ZkLocks slow = slowClient();

    // When a slow client waits for it and times out
    assertThat(slow.mutex("m").tryAcquire(TIMEOUT)).isEmpty();

    // Then its waiting node is already gone: it cannot become the head once the holder leaves
    assertThat(children(dir("m"))).as("only the holder's node").hasSize(1);
    a.release();
    assertThat(client().mutex("m").tryAcquire()).hasValueSatisfying(LockHandle::release);
  }

  @Test
  void writeLockTryAcquireTimesOut_readersAreNotHeldUpByIt() throws Exception {
    // Given a reader holds the lock
    LockHandle r = client().readWriteLock("rw").readLock().acquire();
    ZkLocks slow = slowClient();

    // When a slow writer waits and times out
    assertThat(slow.readWriteLock("rw").writeLock().tryAcquire(TIMEOUT)).isEmpty();

    // Then a new reader is not queued behind a write request that no longer exists
    assertThat(client().readWriteLock("rw").readLock().tryAcquire())
        .as("the failed writer's node is gone")
        .hasValueSatisfying(LockHandle::release);
    r.release();
  }

  @Test
  void semaphoreTryAcquireTimesOut_theAdmissionItHeldIsGivenBackBeforeItReturns() throws Exception {
    // Given the only permit is held
    LockHandle a = client().semaphore("s", 1).acquire();
    ZkLocks slow = slowClient();

    // When a slow client waits for a lease and times out (admission and lease request take one
    // delayed round trip each, 800 ms: the deadline finds the lease request waiting)
    assertThat(slow.semaphore("s", 1).tryAcquire(Duration.ofSeconds(4))).isEmpty();

    // Then the admission mutex it held is given back (its waiting lease request is deleted in the
    // background, as every timed-out request's node is)
    assertThat(children(dir("s") + "/queue")).as("the admission mutex given back").isEmpty();
    a.release();
    assertThat(client().semaphore("s", 1).tryAcquire()).hasValueSatisfying(LockHandle::release);
  }
}
