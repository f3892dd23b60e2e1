package io.zklock.bench;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryNTimes;

/**
 * Curator 5.9 behind the facade: one {@link CuratorFramework} (one session) per client, the recipes
 * used as their documentation shows. Curator has no asynchronous release.
 */
final class CuratorClient implements BenchLock.Client {
  static final String ROOT = "/bench-curator";

  private final CuratorFramework client;
  private final Map<String, BenchLock> cache = new ConcurrentHashMap<>();

  /** Completes at Curator's first {@code LOST} connection state: how Curator tells of loss. */
  private final CompletableFuture<String> lost = new CompletableFuture<>();

  CuratorClient(String connectString) throws InterruptedException {
    this(connectString, Endpoints.BENCH_SESSION);
  }

  CuratorClient(String connectString, Duration session) throws InterruptedException {
    client =
        CuratorFrameworkFactory.builder()
            .connectString(connectString)
            .sessionTimeoutMs((int) session.toMillis())
            .connectionTimeoutMs(30_000)
            .retryPolicy(new RetryNTimes(3, 100))
            .build();
    client
        .getConnectionStateListenable()
        .addListener(
            (c, state) -> {
              if (state == ConnectionState.LOST) {
                lost.complete("ConnectionStateListener: LOST");
              }
            });
    client.start();
    if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
      client.close();
      throw new IllegalStateException("Curator could not connect to " + connectString);
    }
  }

  private BenchLock mutexLike(InterProcessMutex m) {
    BenchLock.Held held =
        new BenchLock.Held() {
          @Override
          public void release() throws Exception {
            m.release();
          }

          @Override
          public void releaseAsync() throws Exception {
            m.release(); // Curator has no asynchronous release
          }

          @Override
          public CompletableFuture<String> toldOfLoss() {
            return lost;
          }
        };
    return () -> {
      m.acquire();
      return held;
    };
  }

  @Override
  public BenchLock mutex(String name) {
    return cache.computeIfAbsent(
        "m:" + name, k -> mutexLike(new InterProcessMutex(client, queueDir(name))));
  }

  @Override
  public BenchLock perEntity(String name) {
    return mutexLike(new InterProcessMutex(client, queueDir(name)));
  }

  private InterProcessReadWriteLock rw(String name) {
    return new InterProcessReadWriteLock(client, queueDir(name));
  }

  @Override
  public BenchLock readLock(String name) {
    return cache.computeIfAbsent("r:" + name, k -> mutexLike(rw(name).readLock()));
  }

  @Override
  public BenchLock writeLock(String name) {
    return cache.computeIfAbsent("w:" + name, k -> mutexLike(rw(name).writeLock()));
  }

  @Override
  public BenchLock semaphore(String name, int permits) {
    InterProcessSemaphoreV2 sem = new InterProcessSemaphoreV2(client, queueDir(name), permits);
    return () -> {
      Lease lease = sem.acquire();
      return new BenchLock.Held() {
        @Override
        public void release() throws Exception {
          lease.close();
        }

        @Override
        public void releaseAsync() throws Exception {
          lease.close();
        }
      };
    };
  }

  @Override
  public String queueDir(String name) {
    return ROOT + "/" + name;
  }

  @Override
  public void close() {
    client.close();
  }
}
