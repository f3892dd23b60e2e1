package io.zklock.spring.boot;

import io.zklock.ZkLocks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Stops every {@link ZkLocks} bean of the context when the context stops (a graceful shutdown, or
 * {@code ConfigurableApplicationContext#stop()}, a checkpoint), in the {@link #PHASE} of the
 * context's lifecycle: each one releases the locks it holds, withdraws its waiting requests and
 * ends its session ({@link ZkLocks#stop()}), so that other instances get the locks at once rather
 * than after the session timeout. When the context starts again (after a {@code stop()}, or a
 * restore), each opens a new session ({@link ZkLocks#start()}) for the same lock objects, before
 * the lifecycle beans of the phases above it start (the schedulers, Spring Integration's leader
 * initiator and endpoints, the web server). A leader election or lock watch made directly on a
 * ZkLocks ends with the stop: make it again on start.
 *
 * <h2>The phase</h2>
 *
 * A context stops its lifecycle beans from the highest phase to the lowest, and only then destroys
 * its beans. {@link #PHASE} is {@value #PHASE}, below every lifecycle bean that may still hold or
 * take a lock while it stops, so that they all have stopped when the locks are closed:
 *
 * <ul>
 *   <li>Spring's task schedulers and executors ({@code ThreadPoolTaskScheduler}, phase {@code
 *       Integer.MAX_VALUE / 2}): they take no new runs once the context closes, and wait for the
 *       running ones (Boot's {@code spring.task.scheduling.shutdown.await-termination}) while they
 *       stop. A {@code @Scheduled} job under a ShedLock or registry lock ends and unlocks first.
 *   <li>Spring Integration's {@code LockRegistryLeaderInitiator} ({@code Integer.MAX_VALUE -
 *       1000}), which gives up leadership as it stops, and its endpoints (phase 0), which may hold
 *       registry locks (an aggregator).
 *   <li>The web server's graceful shutdown ({@code SmartLifecycle.DEFAULT_PHASE - 1024}), so
 *       requests in flight finish with their locks.
 * </ul>
 *
 * And it is above the destruction of beans: a bean's {@code @PreDestroy} that releases a lock finds
 * it released already (harmless: a release is idempotent). The locks are released before the
 * context is gone, not left to the session timeout; the beans are closed when they are destroyed.
 */
public class ZkLocksLifecycle implements SmartLifecycle {
  /**
   * The phase of the stop: {@value}, after (below) Spring's schedulers, Spring Integration's
   * endpoints and leader initiator, and the web server's graceful shutdown (and so, at a start,
   * before them).
   */
  public static final int PHASE = -1024;

  private static final Logger log = LoggerFactory.getLogger(ZkLocksLifecycle.class);

  private final ConfigurableListableBeanFactory beanFactory;
  private volatile boolean running;

  public ZkLocksLifecycle(ConfigurableListableBeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  /**
   * Opens a new session for every {@link ZkLocks} singleton this lifecycle stopped (at the first
   * start there is nothing to do: a ZkLocks connects when it is built).
   *
   * @throws io.zklock.ZkLockException if one cannot connect: the context's start fails
   */
  @Override
  public void start() {
    for (String name : beanFactory.getBeanNamesForType(ZkLocks.class, false, false)) {
      if (beanFactory.containsSingleton(name)) {
        ((ZkLocks) beanFactory.getSingleton(name)).start();
      }
    }
    running = true;
  }

  /**
   * Stops every {@link ZkLocks} singleton that the context has made (none is made to be stopped):
   * its holds are released, its waiting requests fail, its session ends.
   */
  @Override
  public void stop() {
    running = false;
    for (String name : beanFactory.getBeanNamesForType(ZkLocks.class, false, false)) {
      if (!beanFactory.containsSingleton(name)) {
        continue;
      }
      try {
        ((ZkLocks) beanFactory.getSingleton(name)).stop();
      } catch (RuntimeException e) {
        log.warn("stopping the ZkLocks bean '{}' failed", name, e);
      }
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
