package io.zklock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * What ShedLock's own provider tests cannot know of {@link ZkLockProvider} (those run unchanged
 * against each Spring line's ShedLock, in consumers/spring-boot4 and consumers/spring-boot3): lock
 * names against ZooKeeper's, a mark that outlives its holder's close and its session's expiry,
 * fencing tokens across an extension, two instances' threads racing. Two providers, each on its own
 * ZooKeeper session, stand for two instances of a service. "Locked" means the other instance cannot
 * take the lock; "unlocked" that it can.
 */
class ZkLockProviderZooKeeperTest {
  private static final AtomicInteger TESTS = new AtomicInteger();

  // a name of its own per test: a lockAtLeastFor mark outlives its test, as it is meant to
  private String name;

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
  void connect(TestInfo test) {
    name = "job-" + TESTS.incrementAndGet() + "-" + test.getTestMethod().orElseThrow().getName();
    locksA = ZkLocks.builder(zk.connectString()).clientName("a").build();
    locksB = ZkLocks.builder(zk.connectString()).clientName("b").build();
    a = new ZkLockProvider(locksA);
    b = new ZkLockProvider(locksB);
  }

  @AfterEach
  void close() {
    locksA.close();
    locksB.close();
  }

  private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
    return new LockConfiguration(Instant.now(), name, atMost, atLeast);
  }

  private static LockConfiguration config(String name) {
    return config(name, Duration.ofMinutes(5), Duration.ZERO);
  }

  private void assertLocked(String name) {
    assertThat(b.lock(config(name)))
        .as("%s is locked: the other instance cannot take it", name)
        .isEmpty();
  }

  private void assertUnlocked(String name) {
    Optional<SimpleLock> l = b.lock(config(name));
    assertThat(l).as("%s is unlocked: the other instance takes it", name).isPresent();
    l.get().unlock();
  }

  private static boolean lockAndUnlock(ZkLockProvider p, LockConfiguration c) {
    Optional<SimpleLock> l = p.lock(c);
    l.ifPresent(SimpleLock::unlock);
    return l.isPresent();
  }

  // ------------------------------------------------------------------ lock and unlock

  @Test
  void unlock_twice_isIllegalState() {
    SimpleLock lock = a.lock(config(name)).orElseThrow();
    lock.unlock();
    assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
  }

  // ------------------------------------------------------------------ names

  @Test
  void names_likeShedLocks_withDotsDashesColonsAndSlashes_areSeparateLocks() {
    List<String> names = List.of(name + ".v2", name + "-v2", "eu:" + name, name, name + "/eu");
    List<SimpleLock> held = new ArrayList<>();
    for (String n : names) {
      held.add(a.lock(config(n)).orElseThrow(() -> new AssertionError("not locked: " + n)));
    }
    names.forEach(this::assertLocked);
    held.forEach(SimpleLock::unlock);
    names.forEach(this::assertUnlocked);
  }

  @Test
  void names_invalidForZooKeeper_rejectedNamingThem() {
    for (String bad : List.of("a//b", "a/../b", "a/./b", "trailing/")) {
      assertThatThrownBy(() -> a.lock(config(bad)))
          .as("name '%s'", bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  // ------------------------------------------------------------------ lockAtLeastFor

  @Test
  void lockAtLeastFor_survivesTheHoldersClose() {
    Duration atLeast = Duration.ofSeconds(2);
    long start = System.nanoTime();
    a.lock(config(name, Duration.ofSeconds(30), atLeast)).orElseThrow().unlock();
    a.close();
    locksA.close(); // the holder shuts down: its session ends

    assertLocked(name);
    await().atMost(Duration.ofSeconds(20)).until(() -> lockAndUnlock(b, config(name)));
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(atLeast.toNanos());
  }

  @Test
  void lockAtLeastFor_survivesTheHoldersCrash_itsSessionExpired() {
    Duration atLeast = Duration.ofSeconds(3);
    long start = System.nanoTime();
    a.lock(config(name, Duration.ofSeconds(30), atLeast)).orElseThrow(); // never unlocked
    zk.expireSession(locksA.sessionId()); // the holder crashed: its ephemeral node is gone
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                locksB
                    .inspect("shedlock/" + name)
                    .map(LockInfo::holders)
                    .orElse(List.of())
                    .isEmpty());

    assertLocked(name);
    await().atMost(Duration.ofSeconds(20)).until(() -> lockAndUnlock(b, config(name)));
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(atLeast.toNanos());
  }

  // ------------------------------------------------------------------ extend

  @Test
  void extend_keepsTheGrantsFencingToken_andALockThatRanOutCannotBeExtendedOverTheNextHolder() {
    SimpleLock lock = a.lock(config(name, Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
    long token = holderToken();
    SimpleLock extended = lock.extend(Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
    assertThat(holderToken()).as("the same grant, the same node: the same token").isEqualTo(token);
    extended.unlock();

    SimpleLock late = a.lock(config(name, Duration.ofMillis(300), Duration.ZERO)).orElseThrow();
    long lateToken = holderToken();
    SimpleLock[] next = new SimpleLock[1];
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> (next[0] = b.lock(config(name)).orElse(null)) != null);
    long nextToken = holderToken();
    assertThat(nextToken).as("the next holder's token is greater").isGreaterThan(lateToken);

    assertThat(late.extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
    assertThat(holderToken()).as("the next holder keeps its node").isEqualTo(nextToken);
    next[0].unlock();
  }

  private long holderToken() {
    return locksB
        .inspect("shedlock/" + name)
        .flatMap(i -> i.holders().stream().findFirst())
        .map(LockNode::fencingToken)
        .orElseThrow(() -> new AssertionError("no holder"));
  }

  // ------------------------------------------------------------------ concurrent lockers

  @Test
  void concurrentLockers_twoInstancesFourThreadsEach_neverTwoHoldersAtOnce() throws Exception {
    int threads = 4;
    int rounds = 40;
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger granted = new AtomicInteger();
    AtomicInteger counter = new AtomicInteger(); // read, then written: the lock guards the pair
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2 * threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (ZkLockProvider p : List.of(a, b)) {
        for (int t = 0; t < threads; t++) {
          futures.add(
              pool.submit(
                  () -> {
                    go.await();
                    for (int i = 0; i < rounds; i++) {
                      Optional<SimpleLock> l =
                          p.lock(config(name, Duration.ofMinutes(5), Duration.ofMillis(5)));
                      if (l.isEmpty()) {
                        continue;
                      }
                      if (inside.incrementAndGet() > 1) {
                        overlaps.incrementAndGet();
                      }
                      int seen = counter.get();
                      Thread.yield();
                      counter.set(seen + 1);
                      granted.incrementAndGet();
                      inside.decrementAndGet();
                      l.get().unlock();
                    }
                    return null;
                  }));
        }
      }
      go.countDown();
      for (Future<?> f : futures) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    System.out.printf(
        "ShedLock contract, concurrent lockers: %d grants of %d attempts, %d overlaps%n",
        granted.get(), 2 * threads * rounds, overlaps.get());
    assertThat(overlaps).hasValue(0);
    assertThat(granted.get()).isPositive();
    assertThat(counter.get()).as("no lost update").isEqualTo(granted.get());
  }
}
