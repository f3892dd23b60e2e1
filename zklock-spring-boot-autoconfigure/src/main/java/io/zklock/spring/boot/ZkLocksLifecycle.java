package io.zklock.spring.boot;

import io.zklock.ZkLocks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Closes every {@link ZkLocks} bean of the context on a graceful shutdown, in the {@link #PHASE} of
 * the context's lifecycle: each one releases the locks it holds, withdraws its waiting requests and
 * ends its session, so that other instances get the locks at once rather than after the session
 * timeout.
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
 * it released already (harmless: a release is idempotent). The locks are closed before the context
 * is gone, not left to the session timeout. After a stop the {@link ZkLocks} beans stay closed: a
 * context that is started again needs new ones.
 */
public class ZkLocksLifecycle implements SmartLifecycle {
  /**
   * The phase of the close: {@value}, after (below) Spring's schedulers, Spring Integration's
   * endpoints and leader initiator, and the web server's graceful shutdown.
   */
  public static final int PHASE = -1024;

  private static final Logger log = LoggerFactory.getLogger(ZkLocksLifecycle.class);

  private final ConfigurableListableBeanFactory beanFactory;
  private volatile boolean running;

  public ZkLocksLifecycle(ConfigurableListableBeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  /** Nothing to start: a {@link ZkLocks} connects when it is built. */
  @Override
  public void start() {
    running = true;
  }

  /**
   * Closes every {@link ZkLocks} singleton that the context has made (none is made to be closed):
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
        ((ZkLocks) beanFactory.getSingleton(name)).close();
      } catch (RuntimeException e) {
        log.warn("closing the ZkLocks bean '{}' failed", name, e);
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
