package io.zklock.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The network between client processes and servers: a latency per message drawn from the seed, and
 * partitions (a process cut off from a server, both ways) with a start and an end. A message sent
 * over a cut link waits until the cut heals, as TCP retransmits; a connection whose other end gave
 * up meanwhile drops it on arrival.
 */
public final class Net {
  private final Sim sim;
  private final SplittableRandom rnd;

  /** Client-to-server one-way latency bounds, ns. */
  long minLatency = 100_000;

  long maxLatency = 2 * Sim.MS;

  /** Between servers. */
  long serverLatency = 300_000;

  private record Cut(long from, long until) {}

  private final Map<String, List<Cut>> cuts = new HashMap<>();

  Net(Sim sim) {
    this.sim = sim;
    this.rnd = sim.net;
  }

  long latency() {
    // mostly short, now and then a slow packet (a loaded host, a retransmit)
    if (rnd.nextInt(50) == 0) {
      return Sim.between(rnd, maxLatency, maxLatency * 20);
    }
    return Sim.between(rnd, minLatency, maxLatency);
  }

  long serverLatency() {
    return Sim.between(rnd, serverLatency / 2, serverLatency * 2);
  }

  private static String key(String process, int server) {
    return process + "/" + server;
  }

  /** Cuts {@code process} off from {@code server} over [from, until). */
  void cut(String process, int server, long from, long until) {
    cuts.computeIfAbsent(key(process, server), k -> new ArrayList<>()).add(new Cut(from, until));
  }

  /** Whether the link is cut at {@code t}, and until when (else {@code t}). */
  long healsAt(String process, int server, long t) {
    List<Cut> cs = cuts.get(key(process, server));
    if (cs == null) {
      return t;
    }
    long at = t;
    boolean moved = true;
    while (moved) {
      moved = false;
      for (Cut c : cs) {
        if (at >= c.from && at < c.until) {
          at = c.until;
          moved = true;
        }
      }
    }
    return at;
  }

  boolean isCut(String process, int server, long t) {
    return healsAt(process, server, t) != t;
  }

  /** When a message sent now from or to {@code process} over a link to {@code server} arrives. */
  long arrival(String process, int server) {
    long t = sim.now();
    return healsAt(process, server, t) + latency();
  }
}
