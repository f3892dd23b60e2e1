package io.zklock.shedlock;

import io.zklock.ZkLocks;
import java.util.function.Supplier;
import net.javacrumbs.shedlock.core.LockProvider;
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
        () -> new ZkLockProvider(ctx.getBean(ZkLocks.class)),
        bd -> bd.setDestroyMethodName("close"));
    ctx.registerBean(jobType, job);
    ctx.refresh();
    return ctx;
  }
}
