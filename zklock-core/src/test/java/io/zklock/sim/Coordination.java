package io.zklock.sim;

import io.zklock.DistributedBarrier;
import io.zklock.DistributedCondition;
import io.zklock.DistributedCountDownLatch;
import io.zklock.DistributedDoubleBarrier;
import io.zklock.DistributedLock;
import io.zklock.DistributedSemaphore;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ZkLockException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * The user threads of the coordination recipes (latch, barrier, double barrier, Condition) and of a
 * name several recipes share by mistake, with the rules each promises:
 *
 * <ul>
 *   <li>LATCH: nobody passes before {@code count} count-downs were made; a count-down is applied
 *       once (its marker); the stored remaining count is {@code count} less the applied ones;
 *   <li>BARRIER: a wait passes only if the barrier was down in a state its session could read (from
 *       the last zxid it had seen when the wait began on);
 *   <li>SIGNAL: a Condition waiter signalled by a signalAll that began after its wait began wakes
 *       signalled (checked only when no fault touched either, as the soak does), and {@code await}
 *       returns holding the lock again (EXCLUSION sees that grant);
 *   <li>STORED_KIND: a directory's stored kind (latch, semaphore, double barrier) never changes: a
 *       recipe refuses another's name ("the caller's mistake") instead of writing over its state.
 * </ul>
 */
final class Coordination {
  static final String NAME = "res";
  private final SimWorld w;
  private final Plan plan;
  private final int count;

  // the latch: count-downs begun and done, and passes
  int countDownsBegun;
  int countDownsDone;
  private final java.util.Map<String, Integer> doneBy = new java.util.HashMap<>(); // per client

  // the Condition: signalAll calls begun (time), and the faults' times
  private final List<Long> signalAllBegun = new ArrayList<>();

  Coordination(SimWorld w, Plan plan) {
    this.w = w;
    this.plan = plan;
    this.count = 1 + (int) (Math.abs(plan.seed) % 4);
  }

  /**
   * EXCEPTIONS: {@code e} is documented for {@code call} (counted by its name), or the run fails.
   */
  private void documented(String who, Documented.Call call, String what, Throwable e) {
    Documented.Entry d = Documented.match(call, e);
    if (d == null) {
      throw undocumented(who, what, e);
    }
    w.checker.count("exceptions." + call + "." + d.name());
  }

  private SimFailure undocumented(String who, String call, Throwable e) {
    return new SimFailure(
        "EXCEPTIONS",
        who + ": " + call + " threw " + e + ", not documented for it" + SimWorld.stackOf(e),
        e);
  }

  SimActor.Body thread(ZkNode node, Plan.Item item) {
    SplittableRandom r = new SplittableRandom(item.seed());
    String name = node.name + ".t" + item.index();
    return switch (plan.focus) {
      case LATCH -> self -> latch(self, node, name, r, item.arg());
      case BARRIER -> self -> barrier(self, node, name, r, item.arg());
      case DOUBLE_BARRIER -> self -> doubleBarrier(self, node, name, r, item.arg());
      case CONDITION -> self -> condition(self, node, name, r, item.arg());
      case MIXED -> self -> mixed(self, node, name, r, item.arg());
      default -> throw new IllegalStateException("not a coordination focus: " + plan.focus);
    };
  }

  // ------------------------------------------------------------------ the latch

  private void latch(SimActor self, ZkNode node, String who, SplittableRandom r, int ops)
      throws Exception {
    DistributedCountDownLatch latch = node.locks.countDownLatch(NAME, count);
    for (int k = 0; k < ops; k++) {
      self.sleep(Sim.between(r, 0, 600 * Sim.MS));
      int what = r.nextInt(10);
      try {
        if (what < 4) {
          countDownsBegun++;
          w.checker.count("latch.countDown");
          latch.countDown();
          countDownsDone++;
          doneBy.merge(node.name, 1, Integer::sum);
        } else if (what < 9) {
          long t = Sim.between(r, 0, 4000);
          int begun = countDownsBegun;
          int doneAtStart = countDownsDone;
          long start = w.sim.now();
          boolean passed = latch.await(Duration.ofMillis(t));
          if (passed) {
            w.checker.count("latch.passes");
            if (countDownsBegun < count) {
              throw new SimFailure(
                  "LATCH",
                  who
                      + " passed the latch of count "
                      + count
                      + " after only "
                      + countDownsBegun
                      + " count-downs had begun");
            }
          } else if (doneAtStart >= count
              && start >= w.checker.quietFrom
              && t >= 2000
              && !node.process.pausedWithin(start, w.sim.now())) {
            throw new SimFailure(
                "LATCH",
                who
                    + " timed out after "
                    + t
                    + " ms on a latch whose "
                    + doneAtStart
                    + " of "
                    + count
                    + " count-downs were done before it began to wait (no fault since)");
          }
          w.checker.count(begun >= count ? "latch.awaitOpen" : "latch.awaitClosed");
        } else {
          // one read, from the client's own server: it shows at least the count-downs its own
          // session did before the call (another client's may not have reached that server yet:
          // ZooKeeper's reads are sequentially consistent), and at most those begun before it
          // returned
          int doneBefore = doneBy.getOrDefault(node.name, 0);
          long c = latch.count();
          int begunAfter = countDownsBegun;
          if (c > Math.max(0, count - doneBefore) || c < Math.max(0, count - begunAfter)) {
            throw new SimFailure(
                "LATCH",
                who
                    + " read count "
                    + c
                    + " with "
                    + doneBefore
                    + " count-downs done by its own client before the call and "
                    + begunAfter
                    + " begun by its end, of "
                    + count);
          }
        }
      } catch (ZkLockException e) {
        documented(who, Documented.Call.COORDINATION, "the latch", e); // none is
      }
    }
  }

  /** At the end: the latch's stored count agrees with the count-downs applied, each once. */
  void checkLatchAtEnd() {
    if (plan.focus != Plan.Focus.LATCH) {
      return;
    }
    SimTree t = w.ens.truth();
    SimTree.Node dir = t.get("/zklock/" + NAME);
    if (dir == null) {
      return;
    }
    int markers = 0;
    for (String k : dir.children) {
      if (k.startsWith("c-")) {
        markers++;
      }
    }
    String data = new String(dir.data, StandardCharsets.UTF_8);
    int remaining =
        Integer.parseInt(io.zklock.internal.rules.Json.parseObject(data).get("remaining"));
    // a count-down on an open latch does nothing: at most count of them are applied
    if (markers > Math.min(count, countDownsBegun) || markers < Math.min(count, countDownsDone)) {
      throw new SimFailure(
          "LATCH",
          markers
              + " count-downs applied (markers), but "
              + countDownsDone
              + " were done and "
              + countDownsBegun
              + " begun: one applied twice, or one lost");
    }
    if (remaining != Math.max(0, count - markers)) {
      throw new SimFailure(
          "LATCH",
          "the latch stores remaining "
              + remaining
              + " after "
              + markers
              + " count-downs of "
              + count);
    }
  }

  // ------------------------------------------------------------------ the barrier

  private void barrier(SimActor self, ZkNode node, String who, SplittableRandom r, int ops)
      throws Exception {
    DistributedBarrier b = node.locks.barrier(NAME);
    for (int k = 0; k < ops; k++) {
      self.sleep(Sim.between(r, 0, 600 * Sim.MS));
      int what = r.nextInt(10);
      try {
        if (what < 3) {
          b.set();
        } else if (what < 6) {
          b.remove();
        } else {
          long seen = node.handles.get(node.handles.size() - 1).lastZxid();
          long t = Sim.between(r, 0, 3000);
          boolean passed = b.await(Duration.ofMillis(t));
          if (passed && !w.barrierDownBetween(seen)) {
            throw new SimFailure(
                "BARRIER",
                who
                    + " passed the barrier although it stood in every state its session could read"
                    + " (from zxid 0x"
                    + Long.toHexString(seen)
                    + " on)");
          }
          w.checker.count(passed ? "barrier.passed" : "barrier.timedOut");
        }
      } catch (ZkLockException e) {
        documented(who, Documented.Call.COORDINATION, "the barrier", e); // none is
      }
    }
  }

  // ------------------------------------------------------------------ the double barrier

  private void doubleBarrier(SimActor self, ZkNode node, String who, SplittableRandom r, int ops)
      throws Exception {
    DistributedDoubleBarrier b = node.locks.doubleBarrier(NAME, 2);
    for (int k = 0; k < Math.min(ops, 4); k++) {
      self.sleep(Sim.between(r, 0, 800 * Sim.MS));
      try {
        boolean in = b.enter(Duration.ofMillis(Sim.between(r, 100, 3000)));
        w.checker.count(in ? "doubleBarrier.entered" : "doubleBarrier.enterTimedOut");
        if (in) {
          self.sleep(Sim.between(r, 0, 300 * Sim.MS));
          boolean out = b.leave(Duration.ofMillis(Sim.between(r, 100, 3000)));
          w.checker.count(out ? "doubleBarrier.left" : "doubleBarrier.leaveTimedOut");
        }
      } catch (ZkLockException e) {
        documented(who, Documented.Call.COORDINATION, "the double barrier", e); // none is
      }
    }
  }

  // ------------------------------------------------------------------ the Condition

  private void condition(SimActor self, ZkNode node, String who, SplittableRandom r, int ops)
      throws Exception {
    DistributedLock lock = node.locks.mutex(NAME);
    DistributedCondition cond = lock.newCondition();
    for (int k = 0; k < ops; k++) {
      self.sleep(Sim.between(r, 0, 400 * Sim.MS));
      Checker.Hold h =
          w.checker.request(
              who,
              node.process,
              NAME,
              Checker.Mode.EXCLUSIVE,
              false,
              node.sessionTimeoutNanos,
              "acquire");
      LockHandle held = lock.acquire();
      w.checker.granted(h, held.fencingToken(), held.path(), 0, 1);
      toldLoss(held, h);
      boolean waiter = r.nextInt(10) < 5;
      Checker.Hold again = null;
      try {
        if (waiter) {
          long t = Sim.between(r, 100, 2500);
          long begun = w.sim.now();
          w.checker.releaseStarted(h); // await gives the lock up
          again =
              w.checker.request(
                  who,
                  node.process,
                  NAME,
                  Checker.Mode.EXCLUSIVE,
                  false,
                  node.sessionTimeoutNanos,
                  "await (re-acquire)");
          again.owedFrom = begun + t * Sim.MS; // owed a grant once signalled or timed out
          DistributedCondition.Wakeup wake = cond.await(held, Duration.ofMillis(t));
          LockHandle back = wake.handle();
          w.checker.granted(again, back.fencingToken(), back.path(), 0, 1);
          toldLoss(back, again);
          boolean signalledLate = false;
          for (long s : signalAllBegun) {
            if (s > begun && s < begun + t * Sim.MS - 200 * Sim.MS) {
              signalledLate = true;
            }
          }
          if (signalledLate
              && !wake.signalled()
              && begun >= w.checker.quietFrom
              && !node.process.pausedWithin(begun - node.sessionTimeoutNanos, w.sim.now())) {
            throw new SimFailure(
                "SIGNAL",
                who + " was not woken by a signalAll that began during its wait (no fault since)");
          }
          w.checker.count(wake.signalled() ? "condition.signalled" : "condition.timedOut");
          held = back;
          h = again;
        } else {
          signalAllBegun.add(w.sim.now());
          cond.signalAll(held);
          w.checker.count("condition.signalAll");
        }
      } catch (LockLostException e) {
        documented(who, Documented.Call.CONDITION, "the Condition", e);
        w.checker.count("condition.lost");
        if (again != null && !again.granted()) {
          w.checker.ended(again, "lost before its wait", true); // await refused: nothing to retake
        }
      }
      w.checker.releaseStarted(h);
      held.release();
    }
  }

  /** Tells the checker when the library tells {@code held}'s holder that it lost the lock. */
  private void toldLoss(LockHandle held, Checker.Hold h) {
    held.lost()
        .whenComplete(
            (e, x) -> {
              if (e != null && h.lostAt < 0) {
                w.checker.lost(h, e.reason().name());
              }
            });
  }

  // ------------------------------------------------------------------ one name, several recipes

  private void mixed(SimActor self, ZkNode node, String who, SplittableRandom r, int ops)
      throws Exception {
    for (int k = 0; k < ops; k++) {
      self.sleep(Sim.between(r, 0, 400 * Sim.MS));
      int what = r.nextInt(4);
      try {
        switch (what) {
          case 0 -> {
            DistributedSemaphore s = node.locks.semaphore(NAME, 2);
            Optional<LockHandle> got = s.tryAcquire(Duration.ofMillis(500));
            got.ifPresent(LockHandle::release);
          }
          case 1 -> node.locks.countDownLatch(NAME, 3).countDown();
          case 2 -> node.locks.countDownLatch(NAME, 3).await(Duration.ofMillis(300));
          default -> {
            DistributedDoubleBarrier b = node.locks.doubleBarrier(NAME, 2);
            if (b.enter(Duration.ofMillis(300))) {
              b.leave(Duration.ofMillis(3000));
            }
          }
        }
        w.checker.count("mixed.ok");
      } catch (ZkLockException e) {
        documented(who, Documented.Call.RECIPE_ON_A_SHARED_NAME, "a recipe on a shared name", e);
        w.checker.count("mixed.refused");
      }
    }
  }
}
