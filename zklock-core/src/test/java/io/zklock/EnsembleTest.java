package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.FaultProxy;
import io.zklock.testkit.ServerFreePhase;
import io.zklock.testkit.ZooKeeperEnsemble;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A three-server ensemble of child processes: servers die, the lock and its session survive. */
@Tag(ServerFreePhase.SERVER_TAG)
class EnsembleTest {
  private static ZooKeeperEnsemble ensemble;

  @BeforeAll
  static void start() throws Exception {
    ensemble = EmbeddedZooKeeper.ensemble(3).childProcesses().start();
  }

  @AfterAll
  static void stop() {
    if (ensemble != null) {
      ensemble.close();
    }
  }

  @Test
  void killingTheServerTheHolderIsConnectedTo_doesNotLoseTheLock() throws Exception {
    List<FaultProxy> proxies = FaultProxy.forEnsemble(ensemble);
    try (ZkLocks holder =
            ZkLocks.builder(FaultProxy.connectString(proxies))
                .namespace("/ensemble")
                .sessionTimeout(Duration.ofSeconds(10))
                .build();
        ZkLocks other =
            ZkLocks.builder(ensemble.connectString())
                .namespace("/ensemble")
                .sessionTimeout(Duration.ofSeconds(10))
                .build()) {
      List<SessionState> states = new CopyOnWriteArrayList<>();
      holder.addSessionListener((s, id) -> states.add(s));
      LockHandle h = holder.mutex("job").acquire();
      CompletableFuture<LockHandle> waiting = other.mutex("job").acquireAsync();
      int connectedTo = -1;
      for (int i = 0; i < proxies.size(); i++) {
        if (proxies.get(i).activeConnections() > 0) {
          connectedTo = i;
        }
      }
      assertThat(connectedTo).as("the holder's server").isNotNegative();

      ensemble.kill(connectedTo);

      await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(SessionState.CONNECTED));
      assertThat(states).doesNotContain(SessionState.LOST);
      assertThat(h.isHeld()).isTrue();
      assertThat(h.lost()).isNotDone();
      assertThat(waiting).as("the other client still waits").isNotDone();

      h.release();
      LockHandle next = waiting.get(20, TimeUnit.SECONDS);
      assertThat(next.fencingToken()).isGreaterThan(h.fencingToken());
      next.release();
      ensemble.restart(connectedTo);
    } finally {
      proxies.forEach(FaultProxy::close);
    }
  }
}
