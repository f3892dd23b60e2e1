package io.zklock.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * Shrinks a failing run to a minimal one: drops items of its plan (user threads and faults), in
 * halves then one by one (delta debugging), keeping each drop after which the run still breaks the
 * same rule. Each item draws its choices from a stream of its own, so the kept ones do what they
 * did; the run's timing around them changes, which is why every candidate is run again.
 */
final class Shrinker {
  private Shrinker() {}

  /**
   * The smallest failing run found within {@code maxRuns} runs or {@code maxNanos} of wall time.
   */
  static SimRun.Result shrink(SimRun.Result failed, int maxRuns, long maxNanos) {
    String rule = failed.rule();
    Plan plan = failed.plan();
    SimRun.Result best = failed;
    List<Plan.Item> items = new ArrayList<>(plan.items);
    long end = System.nanoTime() + maxNanos;
    int runs = 0;
    int chunk = Math.max(1, items.size() / 2);
    while (chunk >= 1 && runs < maxRuns && System.nanoTime() < end) {
      boolean progress = false;
      for (int i = 0; i < items.size() && runs < maxRuns && System.nanoTime() < end; ) {
        List<Plan.Item> candidate = new ArrayList<>(items);
        candidate.subList(i, Math.min(items.size(), i + chunk)).clear();
        if (candidate.isEmpty() || !hasThread(candidate)) {
          i += chunk;
          continue;
        }
        SimRun.Result r = SimRun.run(plan.with(candidate), 300, false);
        runs++;
        if (r.failed() && rule.equals(r.rule())) {
          items = candidate;
          best = r;
          progress = true;
        } else {
          i += chunk;
        }
      }
      if (!progress) {
        chunk /= 2;
      }
    }
    return best;
  }

  private static boolean hasThread(List<Plan.Item> items) {
    for (Plan.Item i : items) {
      if (i.kind().equals("thread")) {
        return true;
      }
    }
    return false;
  }
}
