package io.zklock.shedlock;

import io.zklock.ZkLocks;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * One application instance of the scheduled-job tests: a Spring context with scheduling and
 * ShedLock enabled by {@code config}, its own {@link ZkLocks} session named {@code name}, a {@link
 * ZkLockProvider} on it, and the job bean.
 */
final class SchedulingInstances {
  private SchedulingInstances() {}

  static <J> AnnotationConfigApplicationContext instance(
      String connectString, String name, Class<?> config, Class<J> jobType, Supplier<J> job) {
    AnnotationConfigApplicationContext ctx = new AnnotationConfigApplicationContext();
    ctx.register(config);
    ctx.registerBean(
        ZkLocks.class,
        () -> ZkLocks.builder(connectString).clientName(name).build(),
        bd -> bd.setDestroyMethodName("close"));
    ctx.registerBean(
        LockProvider.class,
        () -> new Counting(new ZkLockProvider(ctx.getBean(ZkLocks.class))),
        bd -> bd.setDestroyMethodName("close"));
    ctx.registerBean(jobType, job);
    ctx.refresh();
    return ctx;
  }

  /** How many of {@code ctx}'s scheduled runs found the lock taken (and were skipped). */
  static int skipped(AnnotationConfigApplicationContext ctx) {
    return ((Counting) ctx.getBean(LockProvider.class)).skipped.get();
  }

  /** The instance's provider, counting the runs that found the lock taken. */
  static final class Counting implements ExtensibleLockProvider, AutoCloseable {
    private final ZkLockProvider provider;
    final AtomicInteger skipped = new AtomicInteger();

    Counting(ZkLockProvider provider) {
      this.provider = provider;
    }

    @Override
    public Optional<SimpleLock> lock(LockConfiguration config) {
      Optional<SimpleLock> lock = provider.lock(config);
      if (lock.isEmpty()) {
        skipped.incrementAndGet();
      }
      return lock;
    }

    @Override
    public void close() {
      provider.close();
    }
  }
}
