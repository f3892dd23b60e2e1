package io.zklock.bench;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockOptions;
import io.zklock.ZkLocks;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/** zklock behind the facade: one {@link ZkLocks} (one session) per client. */
final class ZkLockClient implements BenchLock.Client {
  static final String NAMESPACE = "/bench-zklock";

  private final ZkLocks locks;
  private final boolean curatorCompatible;
  private final String namespace;
  private final Map<String, BenchLock> cache = new ConcurrentHashMap<>();

  ZkLockClient(String connectString, int index) {
    this(connectString, index, Endpoints.BENCH_SESSION);
  }

  ZkLockClient(String connectString, int index, Duration session) {
    this(connectString, index, session, false);
  }

  /**
   * @param curatorCompatible whether its locks share Curator's queues ({@link
   *     LockOptions#curatorCompatible()}): then it locks under Curator's root, on Curator's paths
   */
  ZkLockClient(String connectString, int index, Duration session, boolean curatorCompatible) {
    this(connectString, index, session, curatorCompatible, false);
  }

  /**
   * @param batching whether its requests are batched ({@code ZkLocks.Builder#batching})
   */
  ZkLockClient(
      String connectString,
      int index,
      Duration session,
      boolean curatorCompatible,
      boolean batching) {
    this.curatorCompatible = curatorCompatible;
    this.namespace = curatorCompatible ? CuratorClient.ROOT : NAMESPACE;
    ZkLocks.Builder builder =
        ZkLocks.builder(connectString)
            .namespace(namespace)
            .sessionTimeout(session)
            .connectTimeout(Duration.ofSeconds(30))
            .clientName("bench-" + index)
            .batching(batching);
    Observed.listener().ifPresent(builder::eventListener);
    this.locks = builder.build();
  }

  ZkLocks locks() {
    return locks;
  }

  static BenchLock wrap(DistributedLock lock) {
    return () -> held(lock.acquire());
  }

  static BenchLock.Held held(LockHandle h) {
    return new BenchLock.Held() {
      @Override
      public void release() {
        h.release();
      }

      @Override
      public void releaseAsync() {
        h.releaseAsync();
      }

      @Override
      public OptionalLong token() {
        return OptionalLong.of(h.fencingToken());
      }

      @Override
      public CompletableFuture<String> toldOfLoss() {
        return h.lost().thenApply(e -> "lost() completed: " + e.getMessage());
      }
    };
  }

  @Override
  public BenchLock mutex(String name) {
    return cache.computeIfAbsent(
        "m:" + name,
        k ->
            wrap(
                curatorCompatible
                    ? locks.mutex(name, LockOptions.curatorCompatible())
                    : locks.mutex(name)));
  }

  @Override
  public BenchLock perEntity(String name) {
    return curatorCompatible ? mutex(name) : wrap(locks.mutex(name));
  }

  @Override
  public BenchLock readLock(String name) {
    return cache.computeIfAbsent("r:" + name, k -> wrap(locks.readWriteLock(name).readLock()));
  }

  @Override
  public BenchLock writeLock(String name) {
    return cache.computeIfAbsent("w:" + name, k -> wrap(locks.readWriteLock(name).writeLock()));
  }

  @Override
  public BenchLock semaphore(String name, int permits) {
    // throws UnsupportedOperationException until the semaphore lands in zklock-core
    var sem = locks.semaphore(name, permits);
    return () -> held(sem.acquire());
  }

  @Override
  public String queueDir(String name) {
    return namespace + "/" + name;
  }

  @Override
  public void close() {
    locks.close();
  }
}
