package com.example.scheduledjob;

import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A job that must run once per period, on one instance of the service: ShedLock's
 * {@code @SchedulerLock}, on zklock. At each tick, the instance that gets the zklock lock {@code
 * shedlock/report} runs the job; the others find it busy and skip the tick (a busy lock costs one
 * request and leaves nothing behind). {@code lockAtLeastFor} keeps the lock after a short run, so
 * that an instance whose tick comes a little later does not run the job again; {@code
 * lockAtMostFor} frees the lock of a holder stuck in the job; a crashed holder's lock goes with its
 * ZooKeeper session.
 */
@Component
public class ReportJob {
  private static final Logger log = LoggerFactory.getLogger(ReportJob.class);

  private final AtomicInteger runs = new AtomicInteger();

  @Scheduled(fixedDelayString = "${example.report.every}")
  @SchedulerLock(
      name = "report",
      lockAtLeastFor = "${example.report.at-least}",
      lockAtMostFor = "PT5M")
  public void report() {
    LockAssert.assertLocked(); // fails unless the job runs under the lock
    int n = runs.incrementAndGet();
    log.info("report #{}: running under the zklock lock shedlock/report", n);
  }

  /** How many times the job ran on this instance. */
  public int runs() {
    return runs.get();
  }
}
