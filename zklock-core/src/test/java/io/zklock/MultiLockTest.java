package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

class MultiLockTest extends ZkTestSupport {

  @Test
  void overlappingSetsFromManySessions_neverDeadlock_andEachLockStaysExclusive() throws Exception {
    int sessions = 8;
    int resources = 4;
    int rounds = 6;
    AtomicIntegerArray inside = new AtomicIntegerArray(resources);
    List<String> violations = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(sessions);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int s = 0; s < sessions; s++) {
        ZkLocks locks = client("multi-" + s);
        Random random = new Random(s);
        futures.add(
            pool.submit(
                () -> {
                  for (int r = 0; r < rounds; r++) {
                    List<Integer> ids = new ArrayList<>(List.of(0, 1, 2, 3));
                    Collections.shuffle(ids, random); // callers name them in any order
                    List<Integer> chosen = ids.subList(0, 2 + random.nextInt(resources - 1));
                    DistributedLock[] parts = new DistributedLock[chosen.size()];
                    for (int i = 0; i < parts.length; i++) {
                      parts[i] = locks.mutex("res/" + chosen.get(i));
                    }
                    try (LockHandle h = locks.multiLock(parts).acquire()) {
                      for (int id : chosen) {
                        if (inside.incrementAndGet(id) != 1) {
                          violations.add("resource " + id + " held twice");
                        }
                      }
                      Thread.sleep(1);
                      for (int id : chosen) {
                        inside.decrementAndGet(id);
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS); // a deadlock would show as a timeout here
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(violations).isEmpty();
    awaitNoLockNodes();
  }

  @Test
  void timeoutOnOnePart_releasesTheOthers_withOneDeadline() throws Exception {
    LockHandle b = client().mutex("b").acquire();
    ZkLocks locks = client();
    DistributedLock multi = locks.multiLock(locks.mutex("b"), locks.mutex("a"));

    long start = System.nanoTime();
    Optional<LockHandle> got = multi.tryAcquire(Duration.ofMillis(300));
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertThat(got).isEmpty();
    assertThat(ms).as("one deadline for the whole set").isBetween(290L, 5_000L);
    assertThat(client().mutex("a").tryAcquire())
        .as("the part acquired first was released")
        .hasValueSatisfying(LockHandle::release);
    assertThat(multi.tryAcquire()).as("busy").isEmpty();
    b.release();
    awaitNoLockNodes();
  }

  @Test
  void tryAcquireTimesOut_returnsOnlyOnceThePartsItTookAreReleased_5Runs() throws Exception {
    // Given another session holds the second part (in canonical order: "a" before "b")
    LockHandle b = client().mutex("b").acquire();
    ZkLocks locks = client();
    DistributedLock multi = locks.multiLock(locks.mutex("b"), locks.mutex("a"));
    DistributedLock probe = client().mutex("a");
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      for (int run = 0; run < 5; run++) {
        // When the multi-lock takes "a", then times out on "b"
        Future<Optional<LockHandle>> tried =
            caller.submit(() -> multi.tryAcquire(Duration.ofSeconds(3)));
        // (its node queued in "b" shows that it took "a": it asks for the parts in order; a
        // time-out that came while "a" was still being asked for would prove nothing here)
        await()
            .atMost(Duration.ofSeconds(3))
            .until(() -> raw().getChildren(dir("b"), false).size() == 2);
        assertThat(tried.get(30, TimeUnit.SECONDS)).as("run %d: busy", run).isEmpty();

        // Then "a" is already free for another session, the moment the failure is returned
        Optional<LockHandle> a = probe.tryAcquire();
        assertThat(a)
            .as("run %d: the part taken first was released before the return", run)
            .isPresent();
        a.get().release();
      }
    } finally {
      caller.shutdownNow();
    }
    b.release();
    awaitNoLockNodes();
  }

  @Test
  void tryAcquireBusy_returnsOnlyOnceThePartsItTookAreReleased_20Runs() throws Exception {
    // Given another session holds the second part
    LockHandle b = client().simpleLock("b").acquire();
    ZkLocks locks = client();
    DistributedLock multi = locks.multiLock(locks.simpleLock("b"), locks.mutex("a"));
    DistributedLock probe = client().mutex("a");
    for (int run = 0; run < 20; run++) {
      // When tryAcquire() takes "a" and finds "b" busy
      assertThat(multi.tryAcquire()).as("run %d: busy", run).isEmpty();

      // Then "a" is free again at once
      Optional<LockHandle> a = probe.tryAcquire();
      assertThat(a)
          .as("run %d: the part taken first was released before the return", run)
          .isPresent();
      a.get().release();
    }
    b.release();
    awaitNoLockNodes();
  }

  @Test
  void partLostWhileWaitingForTheNext_givesAllBackAndStartsOver_neverHandsALostPart()
      throws Exception {
    // Given a multi-lock that holds "a" and waits for "b", held by another session
    LockHandle b = client().mutex("b").acquire();
    ZkLocks locks = client();
    CompletableFuture<LockHandle> f =
        locks.multiLock(locks.mutex("a"), locks.mutex("b")).acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> nodesIn("a").size() == 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> nodesIn("b").size() == 2);
    String firstA = nodesIn("a").get(0);

    // When an operator deletes its node of "a" (the part is lost)
    raw().delete(firstA, -1);

    // Then it starts over: a new request for "a", none left in "b"'s queue
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> nodesIn("a").size() == 1 && !nodesIn("a").contains(firstA));
    await().atMost(Duration.ofSeconds(10)).until(() -> nodesIn("b").size() == 2);
    assertThat(f).isNotDone();
    b.release();
    LockHandle h = f.get(10, TimeUnit.SECONDS);
    assertThat(h.isHeld()).as("every part of the handed set is held").isTrue();
    assertThat(h.lost()).isNotDone();
    assertThat(nodesIn("a")).hasSize(1);
    assertThat(nodesIn("b")).hasSize(1);
    h.release();
    awaitNoLockNodes();
  }

  private List<String> nodesIn(String lockName) throws Exception {
    List<String> out = new ArrayList<>();
    for (String n : lockNodes()) {
      if (n.startsWith(dir(lockName) + "/")) {
        out.add(n);
      }
    }
    return out;
  }

  @Test
  void handle_tokenIsTheMax_andLostWhenAnyPartIsLost() throws Exception {
    ZkLocks locks = client();
    LockHandle h = locks.multiLock(locks.mutex("x"), locks.simpleLock("y")).acquire();
    List<String> nodes = lockNodes();
    assertThat(nodes).hasSize(2);
    long max = 0;
    for (String p : nodes) {
      max = Math.max(max, raw().exists(p, false).getCzxid());
    }
    assertThat(h.fencingToken()).isEqualTo(max);
    assertThat(h.isHeld()).isTrue();

    raw().delete(namespace + "/y/x-lock", -1);

    LockLostException lost = h.lost().get(10, TimeUnit.SECONDS);
    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.NODE_DELETED);
    assertThat(h.isHeld()).isFalse();
    h.release();
    assertNoLockNodes();
  }

  @Test
  void badParts_areRefused() {
    ZkLocks locks = client();
    DistributedLock a = locks.mutex("a");
    assertThatThrownBy(() -> locks.multiLock())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("none");
    assertThatThrownBy(() -> locks.multiLock(a, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lock 1");
    assertThatThrownBy(() -> locks.multiLock(a, locks.mutex("a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("twice");
    ReadWriteLock rw = locks.readWriteLock("rw");
    assertThatThrownBy(() -> locks.multiLock(rw.readLock(), rw.writeLock()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("twice");
    DistributedLock foreign =
        new DistributedLock() {
          @Override
          public String name() {
            return "foreign";
          }

          @Override
          public LockHandle acquire() {
            throw new UnsupportedOperationException();
          }

          @Override
          public Optional<LockHandle> tryAcquire() {
            throw new UnsupportedOperationException();
          }

          @Override
          public Optional<LockHandle> tryAcquire(Duration timeout) {
            throw new UnsupportedOperationException();
          }

          @Override
          public CompletableFuture<LockHandle> acquireAsync() {
            throw new UnsupportedOperationException();
          }

          @Override
          public Lock asLock() {
            throw new UnsupportedOperationException();
          }

          @Override
          public DistributedLock withLease(Duration lease) {
            throw new UnsupportedOperationException();
          }

          @Override
          public DistributedCondition newCondition(String name) {
            throw new UnsupportedOperationException();
          }
        };
    assertThatThrownBy(() -> locks.multiLock(a, foreign))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a zklock lock");
  }
}
