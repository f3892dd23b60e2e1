package io.zklock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class FaultProxyTest {
  private static EmbeddedZooKeeper zk;

  @BeforeAll
  static void start() {
    zk = EmbeddedZooKeeper.standalone().start();
  }

  @AfterAll
  static void stop() {
    zk.close();
  }

  @Test
  void pass_forwardsClientTraffic() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(zk.connectString());
        ZkClients.Recorded c = ZkClients.connect(proxy.connectString(), 2000)) {
      c.zk.create("/through-proxy", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
      assertThat(c.zk.exists("/through-proxy", false)).isNotNull();
      assertThat(proxy.activeConnections()).isEqualTo(1);
    }
  }

  @Test
  void cut_clientIsDisconnectedThenReconnectsWithSameSession() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(zk.connectString());
        ZkClients.Recorded c = ZkClients.connect(proxy.connectString(), 4000)) {
      long session = c.zk.getSessionId();
      c.states.clear();

      proxy.cut();

      c.awaitState(KeeperState.Disconnected, 10);
      c.awaitState(KeeperState.SyncConnected, 10);
      assertThat(c.states).containsSubsequence(KeeperState.Disconnected, KeeperState.SyncConnected);
      assertThat(c.zk.getSessionId()).isEqualTo(session);
    }
  }

  @Test
  void blackhole_longerThanSessionTimeout_clientEndsExpired() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(zk.connectString());
        ZkClients.Recorded c = ZkClients.connect(proxy.connectString(), 1000)) {
      long session = c.zk.getSessionId();
      c.states.clear();

      proxy.blackhole();

      c.awaitState(KeeperState.Disconnected, 10);
      Awaitility.await("the server expires the silent session")
          .atMost(10, TimeUnit.SECONDS)
          .until(() -> !zk.server().getZKDatabase().getSessions().contains(session));
      assertThat(c.states).doesNotContain(KeeperState.Expired);

      proxy.pass();

      c.awaitState(KeeperState.Expired, 10);
    }
  }

  @Test
  void refuse_clientCannotConnectUntilPass() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(zk.connectString());
        ZkClients.Recorded c = ZkClients.connect(proxy.connectString(), 4000)) {
      c.states.clear();

      proxy.refuse();

      c.awaitState(KeeperState.Disconnected, 10);
      assertThat(proxy.mode()).isEqualTo(FaultProxy.Mode.REFUSE);
      assertThat(c.states).doesNotContain(KeeperState.SyncConnected);

      proxy.pass();

      c.awaitState(KeeperState.SyncConnected, 10);
    }
  }

  @Test
  void delay_addsLatencyInBothDirections() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(zk.connectString());
        ZkClients.Recorded c = ZkClients.connect(proxy.connectString(), 4000)) {
      proxy.delay(Duration.ofMillis(150));

      long start = System.nanoTime();
      c.zk.exists("/", false);
      long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

      assertThat(elapsedMs).as("one round trip pays the delay twice").isGreaterThanOrEqualTo(300);
      proxy.delay(Duration.ZERO);
    }
  }

  /**
   * Chunks sent while earlier chunks are still in the delay line each arrive {@code delay} after
   * they were sent, not behind the earlier chunks' delays. A proxy that slept {@code delay} per
   * read would deliver the chunks sent during a sleep only after that sleep plus another delay: up
   * to twice the delay (1.9x here, with chunks sent every delay/10), which the bound of 1.5x rules
   * out, while a delay line leaves half a delay for scheduling noise. The delay is long so that
   * half of it is more than a loaded machine's noise: with 400 ms, a chunk of a delay line arrived
   * 756 ms after it was sent in a build at a load average of 30 (its 200 ms of slack gone).
   */
  @Test
  void delay_chunksSentWhileEarlierOnesAreDelayed_eachArriveOneDelayLater() throws Exception {
    long delayNanos = TimeUnit.MILLISECONDS.toNanos(2000);
    int chunks = 10;
    try (java.net.ServerSocket target = new java.net.ServerSocket()) {
      target.bind(new java.net.InetSocketAddress(Ports.LOOPBACK, 0));
      try (FaultProxy proxy = FaultProxy.start(Ports.LOOPBACK, target.getLocalPort());
          java.net.Socket client = new java.net.Socket(Ports.LOOPBACK, proxy.port());
          java.net.Socket server = target.accept()) {
        client.setTcpNoDelay(true);
        proxy.delay(Duration.ofNanos(delayNanos));
        long[] sent = new long[chunks];
        long[] arrived = new long[chunks];
        Thread reader =
            new Thread(
                () -> {
                  try {
                    var in = server.getInputStream();
                    for (int i = 0; i < chunks; i++) {
                      int b = in.read(); // one byte per chunk, so each arrival is seen on its own
                      arrived[b] = System.nanoTime();
                    }
                  } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                });
        reader.start();
        var out = client.getOutputStream();
        for (int i = 0; i < chunks; i++) {
          sent[i] = System.nanoTime();
          out.write(i);
          out.flush();
          Thread.sleep(TimeUnit.NANOSECONDS.toMillis(delayNanos / 10));
        }
        reader.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(reader.isAlive()).as("every chunk arrived").isFalse();
        for (int i = 0; i < chunks; i++) {
          long latency = arrived[i] - sent[i];
          assertThat(latency)
              .as("chunk %d: delayed by the delay", i)
              .isGreaterThanOrEqualTo(delayNanos);
          assertThat(latency)
              .as("chunk %d: not delayed behind the earlier chunks' delays", i)
              .isLessThan(delayNanos * 3 / 2);
        }
      }
    }
  }

  @Test
  void refuse_withDelayedTraffic_endsTheDelayLineThreads() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(zk.connectString());
        ZkClients.Recorded c = ZkClients.connect(proxy.connectString(), 4000)) {
      proxy.delay(Duration.ofMillis(5));
      c.zk.exists("/", false);
      assertThat(delayLineThreads()).as("a delay line per direction").hasSize(2);

      proxy.refuse(); // closes the connection (as cut() does) and keeps the client from coming back

      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> delayLineThreads().isEmpty());
    }
  }

  /** The delay-line threads alive in this JVM (the tests of this class run one at a time). */
  private static List<String> delayLineThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(n -> n.startsWith("fault-proxy-") && n.endsWith("-delay"))
        .toList();
  }

  @Test
  void close_endsAllProxyThreads() throws Exception {
    FaultProxy proxy = FaultProxy.start(zk.connectString());
    try (ZkClients.Recorded c = ZkClients.connect(proxy.connectString(), 4000)) {
      assertThat(proxy.activeConnections())
          .as("the client connects through the proxy")
          .isEqualTo(1);
      assertThat(c.zk.getState().isConnected()).isTrue();
      proxy.blackhole();
      proxy.close();
      proxy.close();
    }
    List<String> alive =
        Thread.getAllStackTraces().keySet().stream()
            .map(Thread::getName)
            .filter(n -> n.startsWith("fault-proxy-"))
            .toList();
    assertThat(alive).as("proxy threads after close").isEmpty();
  }

  @Test
  void start_rejectsBadTargets() {
    assertThatThrownBy(() -> FaultProxy.start("127.0.0.1:1,127.0.0.1:2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("127.0.0.1:1,127.0.0.1:2");
    assertThatThrownBy(() -> FaultProxy.start("localhost", 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
