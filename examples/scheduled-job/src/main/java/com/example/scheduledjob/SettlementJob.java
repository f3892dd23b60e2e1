package com.example.scheduledjob;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.ZkLockException;
import io.zklock.ZkLocks;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A job that must never run on two instances at the same time, and whose writes a stale holder must
 * not make: the plain zklock API, and the lock's fencing token passed to what it writes. Each
 * instance settles at its own ticks when the lock is free (for once per period across instances,
 * see {@link ReportJob}). A holder paused (a long GC) past its session timeout may still run while
 * another instance holds the lock; the ledger refuses its older token.
 */
@Component
public class SettlementJob {
  private static final Logger log = LoggerFactory.getLogger(SettlementJob.class);

  private final DistributedLock lock;
  private final Ledger ledger;

  public SettlementJob(ZkLocks locks, Ledger ledger) {
    this.lock = locks.mutex("settlement");
    this.ledger = ledger;
  }

  @Scheduled(fixedDelayString = "${example.settlement.every}")
  public void settle() {
    try {
      Optional<LockHandle> held = lock.tryAcquire(); // never waits; leaves no node when busy
      if (held.isEmpty()) {
        log.debug("settlement: another instance holds the lock, skipped");
        return;
      }
      try (LockHandle h = held.get()) {
        long entry = ledger.settle(h.fencingToken());
        log.info("settlement #{}: written with fencing token {}", entry, h.fencingToken());
      }
    } catch (ZkLockException e) {
      // ZooKeeper is unreachable (tryAcquire() cannot tell whether the lock is free, and does not
      // wait to find out): skip this tick with one line, the next tick tries again
      log.warn("settlement skipped: {}", e.getMessage());
    }
  }
}
