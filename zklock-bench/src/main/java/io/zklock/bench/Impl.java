package io.zklock.bench;

import java.util.ArrayList;
import java.util.List;

/** The implementations compared, in the order they are interleaved. */
enum Impl {
  /** zklock's {@code mutex}, {@code readWriteLock}, {@code semaphore}. */
  ZKLOCK("zklock", Server.ZOOKEEPER) {
    @Override
    BenchLock.Client connect(Endpoints e, int index) {
      return new ZkLockClient(e.zk(), index, e.session());
    }
  },
  /**
   * zklock with its requests batched ({@code ZkLocks.Builder#batching}): the creates, listings and
   * deletes a client's threads issue while others are in flight go out together in {@code multi}s.
   */
  ZKLOCK_BATCHED("zklock-batched", Server.ZOOKEEPER) {
    @Override
    BenchLock.Client connect(Endpoints e, int index) {
      return new ZkLockClient(e.zk(), index, e.session(), false, true);
    }
  },
  /**
   * zklock's mutex in the Curator-compatible mode ({@code LockOptions.curatorCompatible()}), every
   * client of the queue zklock's: the same requests as plain zklock's, plus the listing a waiter
   * makes before a grant in the modes shared with other libraries.
   */
  ZKLOCK_CURATOR_COMPATIBLE("zklock-curator-compatible", Server.ZOOKEEPER) {
    @Override
    BenchLock.Client connect(Endpoints e, int index) {
      return new ZkLockClient(e.zk(), index, e.session(), true);
    }
  },
  /** Apache Curator 5.9: InterProcessMutex, InterProcessReadWriteLock, InterProcessSemaphoreV2. */
  CURATOR("curator", Server.ZOOKEEPER) {
    @Override
    BenchLock.Client connect(Endpoints e, int index) throws Exception {
      return new CuratorClient(e.zk(), e.session());
    }
  },
  /**
   * The naive algorithm, the textbook first attempt: EPHEMERAL_SEQUENTIAL node, getChildren with a
   * watch on the parent, re-check on every change — the herd effect.
   */
  NAIVE("naive", Server.ZOOKEEPER) {
    @Override
    BenchLock.Client connect(Endpoints e, int index) throws Exception {
      return new NaiveClient(e.zk());
    }
  },
  /**
   * The raw ZooKeeper floor of each scenario: create+delete for an uncontended cycle; for a
   * handoff, one write whose watch fires in the next session (a token ring).
   */
  RAW("raw-zk", Server.ZOOKEEPER) {
    @Override
    BenchLock.Client connect(Endpoints e, int index) throws Exception {
      return new RawClient(e.zk());
    }

    @Override
    List<BenchLock> oneLockPerClient(List<BenchLock.Client> clients, String name) throws Exception {
      List<RawClient> raw = new ArrayList<>();
      for (BenchLock.Client c : clients) {
        raw.add((RawClient) c);
      }
      return RawClient.tokenRing(raw, name);
    }
  },
  /**
   * The fair-queue floor: the fewest requests and round trips a fair sequential-node lock needs
   * (create+getChildren pipelined, one watch on the predecessor, delete; a handoff is one delete
   * plus one notification). See {@link FloorClient}.
   */
  FLOOR("fair-floor", Server.ZOOKEEPER) {
    @Override
    BenchLock.Client connect(Endpoints e, int index) throws Exception {
      return new FloorClient(e.zk());
    }
  },
  /**
   * The fair-queue floor with a one-request uncontended acquire: {@code multi{create,
   * setData(dir)}}, whose directory Stat ({@code numChildren == 1}) proves the node alone; lists
   * only when not. See {@link FastFloorClient}.
   */
  FAST_FLOOR("fast-floor", Server.ZOOKEEPER) {
    @Override
    BenchLock.Client connect(Endpoints e, int index) throws Exception {
      return new FastFloorClient(e.zk());
    }
  },
  /**
   * {@link #FAST_FLOOR} that writes the directory only at a version it knows to hold no data (from
   * its last write or listing of it); a stale version costs a failed {@code multi}. See {@link
   * FastFloorClient}.
   */
  FAST_FLOOR_VERSIONED("fast-floor-versioned", Server.ZOOKEEPER) {
    @Override
    BenchLock.Client connect(Endpoints e, int index) throws Exception {
      return new FastFloorClient(e.zk(), true);
    }
  },
  /** Redisson's fair {@code RLock} ({@code getFairLock}) on redis-server. */
  REDISSON_FAIR("redisson-fair", Server.REDIS) {
    @Override
    BenchLock.Client connect(Endpoints e, int index) {
      return new RedissonBenchClient(e, RedissonBenchClient.Kind.FAIR);
    }
  },
  /** Redisson's {@code RFencedLock} ({@code getFencedLock}: a token with each grant). */
  REDISSON_FENCED("redisson-fenced", Server.REDIS) {
    @Override
    BenchLock.Client connect(Endpoints e, int index) {
      return new RedissonBenchClient(e, RedissonBenchClient.Kind.FENCED);
    }
  },
  /** Redisson's plain (non-fair) {@code RLock} ({@code getLock}). */
  REDISSON("redisson-rlock", Server.REDIS) {
    @Override
    BenchLock.Client connect(Endpoints e, int index) {
      return new RedissonBenchClient(e, RedissonBenchClient.Kind.PLAIN);
    }
  },
  /**
   * A rolling migration caught in the middle (issue 28): Curator's clients and zklock's clients in
   * the Curator-compatible mode alternate (even indexes Curator 5.9, odd zklock) on one queue, on
   * Curator's paths.
   */
  MIXED("mixed-curator-zklock", Server.ZOOKEEPER) {
    @Override
    BenchLock.Client connect(Endpoints e, int index) throws Exception {
      return index % 2 == 0
          ? new CuratorClient(e.zk(), e.session())
          : new ZkLockClient(e.zk(), index, e.session(), true);
    }
  },
  /** etcd's lock service through jetcd: {@code Lock.lock(name, lease)}, one lease per session. */
  ETCD("etcd", Server.ETCD) {
    @Override
    BenchLock.Client connect(Endpoints e, int index) throws Exception {
      return new EtcdBenchClient(e);
    }
  };

  /** The server an implementation runs against. */
  enum Server {
    ZOOKEEPER,
    REDIS,
    ETCD
  }

  final String label;
  final Server server;

  Impl(String label, Server server) {
    this.label = label;
    this.server = server;
  }

  /** Whether the ZooKeeper server's counters (requests, watch events) count this implementation. */
  boolean onZooKeeper() {
    return server == Server.ZOOKEEPER;
  }

  /** The lock libraries (not the floors): the ones whose properties the bench measures. */
  boolean isLibrary() {
    return this != NAIVE
        && this != RAW
        && this != FLOOR
        && this != FAST_FLOOR
        && this != FAST_FLOOR_VERSIONED;
  }

  abstract BenchLock.Client connect(Endpoints endpoints, int index) throws Exception;

  /**
   * One client that {@code threads} threads share (one session): as {@link #connect}, except for
   * Redisson, whose client is then sized as its defaults size it.
   */
  BenchLock.Client connectShared(Endpoints endpoints, int threads) throws Exception {
    return switch (this) {
      case REDISSON_FAIR ->
          new RedissonBenchClient(endpoints, RedissonBenchClient.Kind.FAIR, threads);
      case REDISSON_FENCED ->
          new RedissonBenchClient(endpoints, RedissonBenchClient.Kind.FENCED, threads);
      case REDISSON -> new RedissonBenchClient(endpoints, RedissonBenchClient.Kind.PLAIN, threads);
      default -> connect(endpoints, 0);
    };
  }

  /**
   * The lock every client contends for, one facade per client. For RAW it is the ping-pong token
   * ring: the floor of a handoff (one write, one watch notification to another session).
   */
  List<BenchLock> oneLockPerClient(List<BenchLock.Client> clients, String name) throws Exception {
    List<BenchLock> locks = new ArrayList<>();
    for (BenchLock.Client c : clients) {
      locks.add(c.mutex(name));
    }
    return locks;
  }

  static Impl parse(String s) {
    for (Impl i : values()) {
      if (i.label.equalsIgnoreCase(s) || i.name().equalsIgnoreCase(s)) {
        return i;
      }
    }
    throw new IllegalArgumentException("unknown implementation: '" + s + "'");
  }
}
