package io.zklock.bench;

import java.time.Duration;
import java.util.List;

/**
 * Where one session of any implementation connects, and how long its session (lease) lives: the
 * servers' addresses, or the proxies in front of them.
 *
 * @param zk the ZooKeeper connect string (one server or the ensemble)
 * @param redis {@code host:port} of redis-server, or null if it is not running
 * @param etcd {@code http://host:port} of each etcd member, empty if etcd is not running
 * @param session the session timeout (ZooKeeper), lock watchdog timeout (Redisson) and lease TTL
 *     (etcd)
 */
record Endpoints(String zk, String redis, List<String> etcd, Duration session) {
  /**
   * The session length of every implementation's sessions (zklock's, Curator's, the raw and naive
   * clients', Redisson's watchdog, etcd's lease), on every server: the ensemble is told to grant it
   * ({@link Servers}).
   */
  static final Duration BENCH_SESSION = Duration.ofSeconds(30);

  Endpoints withSession(Duration d) {
    return new Endpoints(zk, redis, etcd, d);
  }
}
