package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.testkit.FaultProxy;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@link ZkLocks#localLocks()}: the application's own view lists what this instance holds and waits
 * for, with tokens, times and its session, and agrees with the ensemble's ({@link
 * ZkLocks#inspect}).
 */
class LocalLocksTest extends ZkTestSupport {

  @Test
  void localLocks_holderAndWaiter_listedWithTokensTimesAndSession() throws Exception {
    ZkLocks app = client("app");
    ZkLocks other = client("other");
    LockHandle held = app.mutex("orders").acquire();
    LockHandle otherHeld = other.mutex("billing").acquire();
    CompletableFuture<LockHandle> waiting = app.mutex("billing").acquireAsync();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> app.inspect("billing").orElseThrow().waiters().size() == 1);

    LocalLocks view = app.localLocks();

    assertThat(view.clientName()).isEqualTo("app");
    assertThat(view.namespace()).isEqualTo(namespace);
    assertThat(view.sessionState()).isEqualTo(SessionState.CONNECTED);
    assertThat(view.sessionId()).isEqualTo(app.sessionId()).isNotZero();
    assertThat(view.negotiatedSessionTimeout()).isEqualTo(app.negotiatedSessionTimeout());
    assertThat(view.requests())
        .as("one held, one waiting; the other client's lock not shown")
        .hasSize(2);
    LocalRequest h = view.held().get(0);
    assertThat(h.lockName()).isEqualTo("orders");
    assertThat(h.kind()).isEqualTo(LockNode.Kind.MUTEX);
    assertThat(h.path()).isEqualTo(held.path());
    assertThat(h.fencingToken()).isEqualTo(held.fencingToken());
    assertThat(h.sessionId()).isEqualTo(app.sessionId());
    LocalRequest w = view.waiting().get(0);
    assertThat(w.lockName()).isEqualTo("billing");
    assertThat(w.held()).isEqualTo(Duration.ZERO);
    assertThat(w.path())
        .as("the waiter's node is the one the ensemble shows waiting")
        .isEqualTo(app.inspect("billing").orElseThrow().waiters().get(0).path());
    assertThat(view.requests()).as("longest-waiting first").containsExactly(h, w);

    // time passes for both: the holder's hold and the waiter's wait grow
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              LocalLocks later = app.localLocks();
              return later.held().get(0).held().compareTo(h.held()) > 0
                  && later.waiting().get(0).waited().compareTo(w.waited()) > 0;
            });

    otherHeld.release();
    LockHandle granted = waiting.get();
    LocalLocks after = app.localLocks();
    assertThat(after.waiting()).isEmpty();
    assertThat(after.held())
        .extracting(LocalRequest::lockName)
        .containsExactlyInAnyOrder("orders", "billing");
    LocalRequest billing =
        after.held().stream().filter(r -> r.lockName().equals("billing")).findFirst().orElseThrow();
    assertThat(billing.fencingToken()).isEqualTo(granted.fencingToken());
    assertThat(billing.waited()).as("its wait ended at the grant").isPositive();

    held.release();
    granted.release();
    assertThat(app.localLocks().requests()).as("released requests are gone").isEmpty();
  }

  @Test
  void localLocks_readWriteAndSemaphoreAndReleaseRequest_showKindAndRequest() throws Exception {
    ZkLocks app = client("app");
    LockHandle read = app.readWriteLock("inventory").readLock().acquire();
    LockHandle lease = app.semaphore("quota", 2).acquire();
    client("operator").requestRelease("inventory");

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> find(app, "inventory").map(LocalRequest::releaseRequested).orElse(false));
    assertThat(find(app, "inventory").orElseThrow().kind()).isEqualTo(LockNode.Kind.READ);
    assertThat(app.localLocks().requests())
        .filteredOn(r -> r.lockName().startsWith("quota"))
        .isNotEmpty()
        .allSatisfy(r -> assertThat(r.kind()).isEqualTo(LockNode.Kind.SEMAPHORE));
    read.release();
    lease.release();
  }

  @Test
  void localLocks_connectionCut_saysSuspendedSinceWhenAndNoServer_thenTheServerAgain()
      throws Exception {
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks app =
          track(
              ZkLocks.builder(proxy.connectString())
                  .namespace(namespace)
                  .clientName("app")
                  .sessionTimeout(Duration.ofSeconds(20))
                  .build());
      LockHandle held = app.mutex("orders").acquire();
      LocalLocks connected = app.localLocks();
      assertThat(connected.sessionState()).isEqualTo(SessionState.CONNECTED);
      assertThat(connected.connectedServer())
          .as("the server it talks to: the proxy's address")
          .isEqualTo("127.0.0.1:" + proxy.port());

      proxy.refuse(); // the connection drops and stays down; the session lives on in the ensemble
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> app.localLocks().sessionState() == SessionState.SUSPENDED);
      LocalLocks suspended = app.localLocks();
      Thread.sleep(50);
      LocalLocks later = app.localLocks();

      assertThat(suspended.connectedServer()).as("no server while suspended").isEmpty();
      assertThat(later.sessionStateFor())
          .as("the time in SUSPENDED grows from the transition")
          .isGreaterThan(suspended.sessionStateFor())
          .isLessThan(Duration.ofSeconds(15));
      assertThat(later.held())
          .as("what this process last knew: still shown held while suspended")
          .extracting(LocalRequest::path)
          .containsExactly(held.path());

      proxy.pass();
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> app.localLocks().sessionState() == SessionState.CONNECTED);
      LocalLocks again = app.localLocks();
      assertThat(again.connectedServer()).isEqualTo("127.0.0.1:" + proxy.port());
      assertThat(again.sessionStateFor()).isLessThan(later.sessionStateFor().plusSeconds(15));
      held.release();
    }
  }

  @Test
  void localLocks_afterClose_emptyAndClosed() {
    ZkLocks app = client("app");
    app.close();

    LocalLocks view = app.localLocks();

    assertThat(view.requests()).isEmpty();
    assertThat(view.sessionState()).isEqualTo(SessionState.CLOSED);
  }

  private static Optional<LocalRequest> find(ZkLocks app, String name) {
    return app.localLocks().requests().stream().filter(r -> r.lockName().equals(name)).findFirst();
  }
}
