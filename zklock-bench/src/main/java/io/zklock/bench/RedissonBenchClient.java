package io.zklock.bench;

import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson behind the facade: one {@link RedissonClient} per session, on a real {@code
 * redis-server}. Three kinds of lock, chosen by {@link Kind}: the fair {@code RLock} ({@code
 * getFairLock}), the fenced lock ({@code getFencedLock}, whose grant carries a token) and the plain
 * {@code RLock} ({@code getLock}). Locks are taken without a lease time, so Redisson's watchdog
 * renews them (its default use); the watchdog timeout is the session length of the run.
 *
 * <p>A {@code RedissonClient} keeps a pool of connections and a Netty event loop; the bench sizes
 * them for one thread per session (a pool of at most 4 connections, 1 kept idle, 4 event-loop
 * threads), since a run connects dozens of sessions in one JVM. Redisson's lock has no signal that
 * tells a holder it lost the lock: {@link BenchLock.Held#toldOfLoss()} never completes.
 */
final class RedissonBenchClient implements BenchLock.Client {
  enum Kind {
    FAIR,
    FENCED,
    PLAIN
  }

  static final String PREFIX = "bench-redisson:";

  private final RedissonClient client;
  private final Kind kind;
  private final Map<String, BenchLock> cache = new ConcurrentHashMap<>();

  RedissonBenchClient(Endpoints endpoints, Kind kind) {
    this(endpoints, kind, 1);
  }

  /**
   * @param threads how many threads share the client: one is sized as above; more get Redisson's
   *     defaults (a pool of 64 connections, 24 kept idle, 32 event-loop threads), what a service
   *     whose threads share one client runs with
   */
  RedissonBenchClient(Endpoints endpoints, Kind kind, int threads) {
    if (endpoints.redis() == null) {
      throw new UnsupportedOperationException(
          "redis-server is not installed (" + PeerServer.Redis.INSTALL + ")");
    }
    this.kind = kind;
    Config config = new Config();
    var server =
        config
            .useSingleServer()
            .setAddress("redis://" + endpoints.redis())
            .setTimeout(30_000)
            .setConnectTimeout(30_000);
    if (threads <= 1) {
      server
          .setConnectionMinimumIdleSize(1)
          .setConnectionPoolSize(4)
          .setSubscriptionConnectionMinimumIdleSize(1)
          .setSubscriptionConnectionPoolSize(2);
      config.setNettyThreads(4);
      config.setThreads(2);
    }
    config.setLockWatchdogTimeout(endpoints.session().toMillis());
    this.client = Redisson.create(config);
  }

  RedissonClient redisson() {
    return client;
  }

  private RLock lockOf(String name) {
    String key = PREFIX + kind.name().toLowerCase(java.util.Locale.ROOT) + ":" + name;
    return switch (kind) {
      case FAIR -> client.getFairLock(key);
      case FENCED -> client.getFencedLock(key);
      case PLAIN -> client.getLock(key);
    };
  }

  @Override
  public BenchLock mutex(String name) {
    return cache.computeIfAbsent(name, k -> wrap(lockOf(name)));
  }

  static BenchLock wrap(RLock lock) {
    return () -> {
      long token;
      if (lock instanceof RFencedLock fenced) {
        Long t = fenced.lockAndGetToken();
        token = t == null ? Long.MIN_VALUE : t;
      } else {
        lock.lock();
        token = Long.MIN_VALUE;
      }
      long thread = Thread.currentThread().getId();
      return new BenchLock.Held() {
        @Override
        public void release() {
          lock.unlock();
        }

        @Override
        public void releaseAsync() {
          lock.unlockAsync(thread); // returns at once: the unlock is sent, not awaited
        }

        @Override
        public OptionalLong token() {
          return token == Long.MIN_VALUE ? OptionalLong.empty() : OptionalLong.of(token);
        }
      };
    };
  }

  @Override
  public BenchLock perEntity(String name) {
    return wrap(lockOf(name));
  }

  @Override
  public BenchLock readLock(String name) {
    throw new UnsupportedOperationException("not measured for Redisson");
  }

  @Override
  public BenchLock writeLock(String name) {
    throw new UnsupportedOperationException("not measured for Redisson");
  }

  @Override
  public BenchLock semaphore(String name, int permits) {
    throw new UnsupportedOperationException("not measured for Redisson");
  }

  @Override
  public String queueDir(String name) {
    return PREFIX + name;
  }

  @Override
  public void close() {
    // no quiet period: Redisson's default waits 2 s on every close for tasks that a benchmark
    // client, closed after its last operation, never has
    client.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
