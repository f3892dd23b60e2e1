package io.zklock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Two Spring contexts (two "instances" of one service, each with its own ZooKeeper session) run the
 * same {@code @Scheduled @SchedulerLock} job every 2 s. lockAtLeastFor (1 s) covers the skew
 * between the two schedulers' firings of one tick and ends well before the next.
 */
class ScheduledJobTest {
  record Run(String instance, long tick) {}

  static final Queue<Run> RUNS = new ConcurrentLinkedQueue<>();
  static final AtomicBoolean HANG_NEXT = new AtomicBoolean();
  static final CountDownLatch HUNG = new CountDownLatch(1);
  static final CountDownLatch UNFREEZE = new CountDownLatch(1);
  // ticks of each instance's scheduler, locked job or not
  static final Map<String, AtomicInteger> TICKS = new ConcurrentHashMap<>();

  @Configuration
  @EnableScheduling
  @EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
  static class SchedulingConfig {}

  public static class Job {
    private final String instance;

    public Job(String instance) {
      this.instance = instance;
    }

    @Scheduled(cron = "*/2 * * * * *")
    public void tick() {
      TICKS.computeIfAbsent(instance, i -> new AtomicInteger()).incrementAndGet();
    }

    @Scheduled(cron = "*/2 * * * * *")
    @SchedulerLock(name = "report-job", lockAtLeastFor = "PT1S", lockAtMostFor = "PT30S")
    public void run() throws InterruptedException {
      RUNS.add(new Run(instance, System.currentTimeMillis() / 2000));
      if (HANG_NEXT.compareAndSet(true, false)) {
        HUNG.countDown();
        UNFREEZE.await(); // a frozen holder: it keeps the lock as long as its session lives
      }
    }
  }

  private static AnnotationConfigApplicationContext instance(String connectString, String name) {
    return SchedulingInstances.instance(
        connectString, name, SchedulingConfig.class, Job.class, () -> new Job(name));
  }

  @Test
  void sameJobInTwoContexts_runsOncePerTick_andTheOtherRunsWhenTheHoldersSessionExpires()
      throws Exception {
    try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.standalone().start();
        AnnotationConfigApplicationContext a = instance(zk.connectString(), "a");
        AnnotationConfigApplicationContext b = instance(zk.connectString(), "b")) {
      try {
        await().atMost(Duration.ofSeconds(30)).until(() -> ticks().size() >= 3);
        assertOncePerTick();

        // the next run freezes while holding the lock (lockAtMostFor 30 s)
        HANG_NEXT.set(true);
        HUNG.await();
        Run frozen = List.copyOf(RUNS).get(RUNS.size() - 1);
        // three more ticks of the other instance's scheduler: it must skip the job at least twice
        AtomicInteger otherTicks =
            TICKS.computeIfAbsent(
                frozen.instance().equals("a") ? "b" : "a", i -> new AtomicInteger());
        int seen = otherTicks.get();
        await().atMost(Duration.ofSeconds(30)).until(() -> otherTicks.get() >= seen + 3);
        assertThat(List.copyOf(RUNS).get(RUNS.size() - 1))
            .as("nobody runs while the frozen holder's session lives")
            .isEqualTo(frozen);

        AnnotationConfigApplicationContext holder = frozen.instance().equals("a") ? a : b;
        String other = frozen.instance().equals("a") ? "b" : "a";
        long expiredAt = System.nanoTime();
        zk.expireSession(holder.getBean(ZkLocks.class).sessionId());

        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () ->
                    RUNS.stream()
                        .anyMatch(r -> r.instance().equals(other) && r.tick() > frozen.tick()));
        long millis = (System.nanoTime() - expiredAt) / 1_000_000L;
        System.out.printf(
            "ShedLock on zklock: the frozen holder's session expired; the other instance ran the"
                + " job %d ms later (lockAtMostFor 30 s, ticks every 2 s); runs %s%n",
            millis, RUNS);
        assertThat(millis / 1000)
            .as("the next tick ran on the other instance, long before lockAtMostFor (30 s)")
            .isLessThan(10);
        assertOncePerTick();
      } finally {
        UNFREEZE.countDown();
      }
    }
  }

  private static Map<Long, List<String>> ticks() {
    return RUNS.stream()
        .collect(
            Collectors.groupingBy(
                Run::tick, Collectors.mapping(Run::instance, Collectors.toList())));
  }

  private static void assertOncePerTick() {
    ticks()
        .forEach((tick, instances) -> assertThat(instances).as("runs of tick %d", tick).hasSize(1));
  }
}
