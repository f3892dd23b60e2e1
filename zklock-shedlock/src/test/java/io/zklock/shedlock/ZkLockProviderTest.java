package io.zklock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ZkLockProviderTest {
  private static EmbeddedZooKeeper zk;

  private ZkLocks locksA;
  private ZkLocks locksB;
  private ZkLockProvider a;
  private ZkLockProvider b;

  @BeforeAll
  static void startServer() {
    zk = EmbeddedZooKeeper.standalone().start();
  }

  @AfterAll
  static void stopServer() {
    zk.close();
  }

  @BeforeEach
  void connect() {
    locksA = ZkLocks.builder(zk.connectString()).clientName("a").build();
    locksB = ZkLocks.builder(zk.connectString()).clientName("b").build();
    a = new ZkLockProvider(locksA);
    b = new ZkLockProvider(locksB);
  }

  @AfterEach
  void close() {
    a.close();
    b.close();
    locksA.close();
    locksB.close();
  }

  private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
    return new LockConfiguration(Instant.now(), name, atMost, atLeast);
  }

  @Test
  void lock_isExclusive_andUnlockFreesIt() {
    LockConfiguration c = config("job", Duration.ofSeconds(30), Duration.ZERO);
    Optional<SimpleLock> first = a.lock(c);

    assertThat(first).isPresent();
    assertThat(b.lock(c)).as("held elsewhere").isEmpty();
    assertThat(a.lock(c)).as("held by this provider's other caller too").isEmpty();

    first.get().unlock();

    await().atMost(Duration.ofSeconds(10)).until(() -> lockAndUnlock(b, c));
    assertThatThrownBy(() -> first.get().unlock()).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void lockAtLeastFor_keepsTheLockAfterAnEarlyUnlock() {
    Duration atLeast = Duration.ofSeconds(2);
    LockConfiguration c = config("job", Duration.ofSeconds(30), atLeast);
    long start = System.nanoTime();
    a.lock(c).orElseThrow().unlock();

    assertThat(b.lock(c)).as("kept until lockAtLeastFor").isEmpty();
    await().atMost(Duration.ofSeconds(20)).until(() -> lockAndUnlock(b, c));
    assertThat(System.nanoTime() - start)
        .as("not released before lockAtLeastFor")
        .isGreaterThanOrEqualTo(atLeast.toNanos());
  }

  @Test
  void lockAtMostFor_releasesALockNeverUnlocked() {
    Duration atMost = Duration.ofSeconds(2);
    LockConfiguration c = config("job", atMost, Duration.ZERO);
    long start = System.nanoTime();
    SimpleLock stuck = a.lock(c).orElseThrow();

    assertThat(b.lock(c)).isEmpty();
    await().atMost(Duration.ofSeconds(20)).until(() -> lockAndUnlock(b, c));
    assertThat(System.nanoTime() - start)
        .as("not released before lockAtMostFor")
        .isGreaterThanOrEqualTo(atMost.toNanos());
    stuck.unlock(); // late, harmless
  }

  @Test
  void extend_reArmsLockAtMostFor_andFailsOnceReleased() throws Exception {
    LockConfiguration c = config("job", Duration.ofSeconds(2), Duration.ZERO);
    SimpleLock lock = a.lock(c).orElseThrow();

    SimpleLock extended = lock.extend(Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
    // past the first lockAtMostFor (2 s), the extension keeps holding it all along
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(10))
        .until(() -> b.lock(c).isEmpty());

    assertThatThrownBy(() -> lock.unlock())
        .as("the extended lock is spent")
        .isInstanceOf(IllegalStateException.class);
    extended.unlock();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockAndUnlock(b, c));

    SimpleLock late = a.lock(config("other", Duration.ofMillis(300), Duration.ZERO)).orElseThrow();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> lockAndUnlock(b, config("other", Duration.ofSeconds(1), Duration.ZERO)));
    assertThat(late.extend(Duration.ofSeconds(5), Duration.ZERO))
        .as("released by lockAtMostFor: nothing to extend")
        .isEmpty();
  }

  @Test
  void holdersSessionExpiry_freesTheLockAtOnce_notAtLockAtMostFor() {
    LockConfiguration c = config("job", Duration.ofMinutes(10), Duration.ZERO);
    a.lock(c).orElseThrow();

    zk.expireSession(locksA.sessionId());

    await().atMost(Duration.ofSeconds(10)).until(() -> lockAndUnlock(b, c));
  }

  @Test
  void sessionNotConnected_skipsTheTick() {
    locksA.close();

    assertThat(a.lock(config("job", Duration.ofSeconds(1), Duration.ZERO))).isEmpty();
  }

  @Test
  void invalidName_isRejectedNamingIt() {
    assertThatThrownBy(() -> a.lock(config("a//b", Duration.ofSeconds(1), Duration.ZERO)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a//b");
  }

  private static boolean lockAndUnlock(ZkLockProvider p, LockConfiguration c) {
    Optional<SimpleLock> l = p.lock(c);
    l.ifPresent(SimpleLock::unlock);
    return l.isPresent();
  }
}
