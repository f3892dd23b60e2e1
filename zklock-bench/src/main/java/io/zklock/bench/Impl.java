package io.zklock.bench;

import java.util.ArrayList;
import java.util.List;

/** The implementations compared, in the order they are interleaved. */
enum Impl {
  /** zklock's {@code mutex}, {@code readWriteLock}, {@code semaphore}. */
  ZKLOCK("zklock") {
    @Override
    BenchLock.Client connect(String connectString, int index) {
      return new ZkLockClient(connectString, index);
    }
  },
  /** Apache Curator 5.9: InterProcessMutex, InterProcessReadWriteLock, InterProcessSemaphoreV2. */
  CURATOR("curator") {
    @Override
    BenchLock.Client connect(String connectString, int index) throws Exception {
      return new CuratorClient(connectString);
    }
  },
  /**
   * The naive algorithm, the textbook first attempt: EPHEMERAL_SEQUENTIAL node, getChildren with a
   * watch on the parent, re-check on every change — the herd effect.
   */
  NAIVE("naive") {
    @Override
    BenchLock.Client connect(String connectString, int index) throws Exception {
      return new NaiveClient(connectString);
    }
  },
  /**
   * The raw ZooKeeper floor of each scenario: create+delete for an uncontended cycle; for a
   * handoff, one write whose watch fires in the next session (a token ring).
   */
  RAW("raw-zk") {
    @Override
    BenchLock.Client connect(String connectString, int index) throws Exception {
      return new RawClient(connectString);
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
  FLOOR("fair-floor") {
    @Override
    BenchLock.Client connect(String connectString, int index) throws Exception {
      return new FloorClient(connectString);
    }
  };

  final String label;

  Impl(String label) {
    this.label = label;
  }

  abstract BenchLock.Client connect(String connectString, int index) throws Exception;

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
