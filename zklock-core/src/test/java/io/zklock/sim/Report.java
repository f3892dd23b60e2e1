package io.zklock.sim;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** How a failed run is told: its rule, its plan, the end of its trace, and how to replay it. */
final class Report {
  private Report() {}

  static String replaySpec(Plan p, Set<Integer> dropped) {
    StringBuilder b = new StringBuilder(Long.toString(p.seed)).append(':').append(p.focus);
    if (p.batched) {
      b.append(":batched");
    }
    if (!dropped.isEmpty()) {
      b.append(":drop=");
      List<Integer> d = new ArrayList<>(dropped);
      d.sort(null);
      for (int i = 0; i < d.size(); i++) {
        b.append(i == 0 ? "" : ",").append(d.get(i));
      }
    }
    return b.toString();
  }

  static String command(String spec) {
    return "./mvnw -B -q -pl zklock-core -am test -Dsurefire.failIfNoSpecifiedTests=false"
        + " -Dtest=SimulationTest#replay -Dsim.replay="
        + spec;
  }

  /**
   * The plan a replay spec names ({@code SEED[:FOCUS][:batched][:drop=i,j]}): its seed, its focus,
   * whether its clients batch, and the items dropped by shrinking.
   */
  static Plan parse(String spec) {
    String[] parts = spec.split(":");
    long seed = Long.parseLong(parts[0]);
    Plan.Focus focus =
        parts.length > 1 && !parts[1].equals("batched") && !parts[1].startsWith("drop=")
            ? Plan.Focus.valueOf(parts[1])
            : null;
    Plan p = Plan.of(seed, focus);
    String dropped = null;
    for (int k = 1; k < parts.length; k++) {
      if (parts[k].equals("batched")) {
        p = p.batched(true);
      } else if (parts[k].startsWith("drop=")) {
        dropped = parts[k].substring(5);
      }
    }
    if (dropped != null) {
      Set<Integer> drop = new HashSet<>();
      for (String i : dropped.split(",")) {
        drop.add(Integer.parseInt(i));
      }
      List<Plan.Item> kept = new ArrayList<>();
      for (Plan.Item i : p.items) {
        if (!drop.contains(i.index())) {
          kept.add(i);
        }
      }
      p = p.with(kept);
    }
    return p;
  }

  static Set<Integer> dropped(Plan full, Plan shrunk) {
    Set<Integer> d = new HashSet<>();
    for (Plan.Item i : full.items) {
      d.add(i.index());
    }
    for (Plan.Item i : shrunk.items) {
      d.remove(i.index());
    }
    return d;
  }

  static String failure(SimRun.Result r) {
    Plan full = Plan.of(r.plan().seed, r.plan().focus);
    String spec = replaySpec(r.plan(), dropped(full, r.plan()));
    StringBuilder b = new StringBuilder();
    b.append("\nSIMULATION FAILED: ").append(r.failure().getMessage()).append('\n');
    b.append(r.plan()).append('\n');
    if (r.plan().items.size() < full.items.size()) {
      b.append("(shrunk from ")
          .append(full.items.size())
          .append(" items to ")
          .append(r.plan().items.size())
          .append(")\n");
    }
    b.append("trace (last ").append(r.trace().size()).append(" steps):\n");
    for (String l : r.trace()) {
      b.append("  ").append(l).append('\n');
    }
    b.append("replay: ").append(command(spec)).append('\n');
    return b.toString();
  }
}
