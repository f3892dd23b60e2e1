package io.zklock.consumers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.ZkLocks;
import io.zklock.shedlock.ZkLockProvider;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * ShedLock's own provider tests, unchanged (its abstract integration test for an extensible
 * provider, with its fuzz tester, from Maven Central's shedlock-test-support), run on this line's
 * ShedLock against {@link ZkLockProvider}. Two providers on two ZooKeeper sessions stand for two
 * instances of a service: "locked" means that the other instance cannot take the lock.
 */
class ZkLockProviderShedLockTest extends AbstractExtensibleLockProviderIntegrationTest {
  /** How long a release in flight may take here: a round trip, on a loaded machine. */
  private static final Duration RELEASE_IN_FLIGHT = Duration.ofSeconds(2);

  private static EmbeddedZooKeeper zk;

  private ZkLocks locks;
  private ZkLocks otherLocks;
  private ZkLockProvider provider;
  private ZkLockProvider other;

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
    locks = ZkLocks.builder(zk.connectString()).clientName("instance-a").build();
    otherLocks = ZkLocks.builder(zk.connectString()).clientName("instance-b").build();
    provider = new ZkLockProvider(locks);
    other = new ZkLockProvider(otherLocks);
  }

  @AfterEach
  void close() {
    locks.close();
    otherLocks.close();
  }

  @Override
  protected ExtensibleLockProvider getLockProvider() {
    return provider;
  }

  /**
   * Another instance takes the lock. A lock whose {@code lockAtMostFor} ran out is released by the
   * holder's own timer, which deletes its node in the background (one round trip): so "unlocked"
   * is "another instance takes it within {@link #RELEASE_IN_FLIGHT}", not at the very instant.
   */
  @Override
  protected void assertUnlocked(String lockName) {
    AtomicReference<SimpleLock> taken = new AtomicReference<>();
    await("%s is unlocked: another instance takes it".formatted(lockName))
        .atMost(RELEASE_IN_FLIGHT)
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              Optional<SimpleLock> lock = other.lock(config(lockName));
              lock.ifPresent(taken::set);
              return lock.isPresent();
            });
    taken.get().unlock();
  }

  @Override
  protected void assertLocked(String lockName) {
    assertThat(other.lock(config(lockName)))
        .as("%s is locked: another instance cannot take it", lockName)
        .isEmpty();
  }

  private static LockConfiguration config(String name) {
    return new LockConfiguration(Instant.now(), name, Duration.ofMinutes(5), Duration.ZERO);
  }
}
