package io.zklock.bench;

import io.zklock.DistributedLock;
import io.zklock.LockOptions;
import java.util.ArrayList;
import java.util.List;

/**
 * The cohort scenario of issue 16 in the side-by-side run: threads of one session on one lock,
 * where {@code zklock} is the cohort mutex ({@link LockOptions#cohort()}), {@code curator} one
 * client whose one {@code InterProcessMutex} the threads share, and {@code redisson-rlock} one
 * {@code RedissonClient} whose plain {@code RLock} the threads share (issue 32; Redisson's lock is
 * owned per thread, so the threads contend through redis-server). {@link CohortBench} measures more
 * (plain zklock, several sessions, the remote waiter's worst wait).
 */
final class CohortScenarios {
  private CohortScenarios() {}

  static final int THREADS = 8;

  static Scenario oneSession() {
    return new Scenario(
        "cohort-1x8",
        "8 threads of one session, one lock (zklock: cohort mutex; Curator: one InterProcessMutex;"
            + " Redisson: one RLock)",
        "acq/s",
        true,
        List.of(Impl.ZKLOCK, Impl.CURATOR, Impl.REDISSON),
        Impl.CURATOR) {
      @Override
      Window measure(Impl impl, Env env) throws Exception {
        List<BenchLock.Client> clients = env.connect(impl, 1);
        try {
          String name = env.freshName("cohort");
          BenchLock lock;
          if (impl == Impl.ZKLOCK) {
            DistributedLock cohort =
                ((ZkLockClient) clients.get(0)).locks().mutex(name, LockOptions.cohort());
            lock = ZkLockClient.wrap(cohort);
          } else {
            lock = clients.get(0).mutex(name);
          }
          List<Loop.Op> ops = new ArrayList<>();
          for (int t = 0; t < THREADS; t++) {
            ops.add(() -> lock.acquire().release());
          }
          return Loop.run(env, ops);
        } finally {
          Env.closeAll(clients);
        }
      }
    };
  }
}
