package io.zklock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.SessionState;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Two Spring contexts (two instances, each with its own healthy ZooKeeper session) run the same
 * {@code @Scheduled @SchedulerLock} job every 200 ms. The first run gets stuck holding the lock:
 * its session lives on, so only {@code lockAtMostFor} (3 s, zklock's lease) can free the lock.
 */
class ScheduledJobLeaseTest {
  record Run(String instance, long nanos) {}

  static final long AT_MOST_MILLIS = 3000;
  static final Queue<Run> RUNS = new ConcurrentLinkedQueue<>();
  static final AtomicBoolean STUCK_TAKEN = new AtomicBoolean();
  static final CountDownLatch UNSTICK = new CountDownLatch(1);

  @Configuration
  @EnableScheduling
  @EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
  static class SchedulingConfig {}

  public static class Job {
    private final String instance;

    public Job(String instance) {
      this.instance = instance;
    }

    @Scheduled(fixedDelay = 200)
    @SchedulerLock(name = "stuck-job", lockAtMostFor = "PT3S", lockAtLeastFor = "PT0S")
    public void run() throws InterruptedException {
      RUNS.add(new Run(instance, System.nanoTime()));
      if (STUCK_TAKEN.compareAndSet(false, true)) {
        UNSTICK.await(); // stuck in its task, its process and session healthy
      }
    }
  }

  private static AnnotationConfigApplicationContext instance(String connectString, String name) {
    return SchedulingInstances.instance(
        connectString, name, SchedulingConfig.class, Job.class, () -> new Job(name));
  }

  @Test
  void holderStuckInItsTask_theLeaseReleasesIt_andTheOtherInstanceRunsAfterLockAtMostFor()
      throws Exception {
    try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.standalone().start();
        AnnotationConfigApplicationContext a = instance(zk.connectString(), "a");
        AnnotationConfigApplicationContext b = instance(zk.connectString(), "b")) {
      try {
        await().atMost(Duration.ofSeconds(20)).until(() -> !RUNS.isEmpty());
        Run stuck = RUNS.peek();
        AnnotationConfigApplicationContext holder = stuck.instance().equals("a") ? a : b;
        long holderSession = holder.getBean(ZkLocks.class).sessionId();

        await().atMost(Duration.ofSeconds(20)).until(() -> RUNS.stream().anyMatch(r -> r != stuck));
        Run next = List.copyOf(RUNS).get(1);
        long gapMillis = TimeUnit.NANOSECONDS.toMillis(next.nanos() - stuck.nanos());
        System.out.printf(
            "ShedLock on zklock: a holder stuck in its task (session healthy); the other instance"
                + " ran the job %d ms after it started (lockAtMostFor %d ms)%n",
            gapMillis, AT_MOST_MILLIS);

        assertThat(next.instance()).as("the other instance").isNotEqualTo(stuck.instance());
        // the lease counts from the grant, which comes just before the task starts: allow 1 s
        assertThat(gapMillis)
            .as("nobody ran while lockAtMostFor lasted")
            .isGreaterThanOrEqualTo(AT_MOST_MILLIS - 1000);
        assertThat(gapMillis)
            .as("the lease, not the session (timeout 15 s), freed the lock")
            .isLessThan(AT_MOST_MILLIS + 8000);
        ZkLocks holderLocks = holder.getBean(ZkLocks.class);
        assertThat(holderLocks.sessionId())
            .as("the stuck holder's session")
            .isEqualTo(holderSession);
        assertThat(holderLocks.sessionState()).isEqualTo(SessionState.CONNECTED);
      } finally {
        UNSTICK.countDown();
      }
    }
  }
}
