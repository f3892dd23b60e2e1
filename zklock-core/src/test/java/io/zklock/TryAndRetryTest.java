package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.testkit.FaultProxy;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * Three promises of the failure-mode contracts: a {@code tryAcquire()} whose request is in flight
 * when the connection goes answers at once instead of waiting for a connection that may never come
 * back; a release the server refused is tried again by the next {@code release()}; a semaphore's
 * {@code tryAcquire(n)} that found some permits busy has given back the ones it got before it
 * returns.
 */
class TryAndRetryTest extends ZkTestSupport {
  private FaultProxy proxy;

  @BeforeEach
  void startProxy() {
    proxy = FaultProxy.start(server.connectString());
  }

  @AfterEach
  void stopProxy() {
    proxy.close();
  }

  private ZkLocks proxied() {
    return track(
        ZkLocks.builder(proxy.connectString())
            .namespace(namespace)
            .sessionTimeout(Duration.ofSeconds(20))
            .build());
  }

  /**
   * The create reaches the server but its reply never comes back, and then no connection is let
   * through: {@code tryAcquire()} throws within seconds (not at the 20 s session timeout, nor
   * never), and its node is gone once the connection returns.
   */
  private void tryInFlight_connectionGone_throwsAtOnce(
      String name, Function<ZkLocks, Optional<LockHandle>> attempt) throws Exception {
    ZkLocks locks = proxied();
    // the directory exists already, so the create is the request's first and only write
    raw().create(dir(name), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    proxy.muteReplies();
    CompletableFuture<Object> outcome = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try {
                outcome.complete(attempt.apply(locks));
              } catch (Throwable e) {
                outcome.complete(e);
              }
            });
    t.start();
    await("the create is applied")
        .atMost(Duration.ofSeconds(10))
        .until(() -> lockNodes().size() == 1);
    proxy.cut(); // the connection drops with the reply still held (so the reply is lost)
    proxy.refuse(); // and no new connection gets through: a partition

    Object result = outcome.get(10, TimeUnit.SECONDS);
    assertThat(result)
        .as("tryAcquire() answers without waiting for the connection")
        .isInstanceOf(ZkLockException.class);
    assertThat(((ZkLockException) result).getMessage()).contains("cannot tell whether it is free");

    proxy.pass();
    await("connected again")
        .atMost(Duration.ofSeconds(20))
        .until(() -> locks.sessionState() == SessionState.CONNECTED);
    await("no lock node left")
        .atMost(Duration.ofSeconds(20))
        .until(() -> raw().getChildren(dir(name), false).isEmpty());
  }

  @RepeatedTest(3)
  void mutexTryAcquire_connectionLostInFlight_throwsAtOnce_andLeavesNoNode() throws Exception {
    tryInFlight_connectionGone_throwsAtOnce(
        "try-inflight", l -> l.mutex("try-inflight").tryAcquire());
  }

  @RepeatedTest(3)
  void simpleTryAcquire_connectionLostInFlight_throwsAtOnce_andLeavesNoNode() throws Exception {
    tryInFlight_connectionGone_throwsAtOnce(
        "try-inflight-simple", l -> l.simpleLock("try-inflight-simple").tryAcquire());
  }

  @Test
  void releaseRefusedByTheServer_isTriedAgainByTheNextRelease() throws Exception {
    ZkLocks locks = client();
    LockHandle h = locks.mutex("refused-release").acquire();
    String node = h.path();
    raw()
        .setACL(
            dir("refused-release"),
            Arrays.asList(
                new ACL(ZooDefs.Perms.ALL & ~ZooDefs.Perms.DELETE, ZooDefs.Ids.ANYONE_ID_UNSAFE)),
            -1);
    assertThatThrownBy(h::release).isInstanceOf(ZkLockException.class).hasMessageContaining(node);
    assertThat(lockNodes()).containsExactly(node);

    raw().setACL(dir("refused-release"), ZooDefs.Ids.OPEN_ACL_UNSAFE, -1); // the operator undoes it
    h.release();

    assertThat(lockNodes()).as("the second release deleted the node").isEmpty();
    assertThat(locks.mutex("refused-release").tryAcquire()).isPresent();
  }

  @RepeatedTest(3)
  void semaphoreTryAcquireN_somePermitsBusy_givesBackWhatItGot_beforeReturning() throws Exception {
    DistributedSemaphore sem = client("a").semaphore("give-back", 3);
    LockHandle taken = sem.acquire(2); // one permit left
    DistributedSemaphore other = client("b").semaphore("give-back", 3);

    assertThat(other.tryAcquire(2)).isEmpty();

    assertThat(lockNodes().stream().filter(p -> p.contains("/leases/")).count())
        .as("only the holder's two leases are left when tryAcquire(2) returns")
        .isEqualTo(2);
    taken.release();
  }

  @Test
  void waitingRequest_ridesOutALostConnection() throws Exception {
    // a waiting request rides out a lost connection (only a try answers at once)
    ZkLocks locks = proxied();
    LockHandle holder = client("holder").mutex("wait-rides").acquire();
    CompletableFuture<LockHandle> waiting = locks.mutex("wait-rides").acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);
    proxy.cut();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> locks.sessionState() == SessionState.CONNECTED);
    holder.release();
    LockHandle h = waiting.get(10, TimeUnit.SECONDS);
    assertThat(h.isHeld()).isTrue();
    h.release();
  }
}
