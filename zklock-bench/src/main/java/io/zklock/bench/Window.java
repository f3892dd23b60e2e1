package io.zklock.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One measurement window of one implementation in one repetition.
 *
 * @param value the scenario's primary figure (a rate, or watch events per acquisition, ...)
 * @param ops operations completed in the window
 * @param requestsPerOp requests the implementation's server received per operation, counted by the
 *     server: ZooKeeper's {@code zk_packets_received}, Redis's {@code total_commands_processed},
 *     etcd's gRPC calls started (NaN where not counted)
 * @param watchEventsPerOp watch notifications ZooKeeper triggered per operation (NaN for peers)
 * @param fsyncsPerOp fsyncs of the server's log per operation (ZooKeeper's {@code fsynctime} count,
 *     etcd's WAL fsync count; NaN where the server counts none)
 * @param extra further figures of the scenario, by name
 */
record Window(
    double value,
    long ops,
    double requestsPerOp,
    double watchEventsPerOp,
    double fsyncsPerOp,
    Map<String, Double> extra) {

  static Window of(double value, long ops, double requestsPerOp, double watchEventsPerOp) {
    return new Window(
        value, ops, requestsPerOp, watchEventsPerOp, Double.NaN, new LinkedHashMap<>());
  }

  /** The mean time of one fsync of the server's log in the window, in ms (a key of extra). */
  static final String FSYNC_MS = "mean fsync (ms)";

  static Window of(Env.Counters c0, Env.Counters c1, double value, long ops) {
    double perOp = Math.max(ops, 1);
    Window w =
        new Window(
            value,
            ops,
            delta(c0.requests(), c1.requests(), perOp),
            delta(c0.watchEvents(), c1.watchEvents(), perOp),
            delta(c0.fsyncs(), c1.fsyncs(), perOp),
            new LinkedHashMap<>());
    long fsyncs = c1.fsyncs() - c0.fsyncs();
    if (c0.fsyncs() >= 0 && c0.fsyncMillis() >= 0 && fsyncs > 0) {
      w.extra().put(FSYNC_MS, (c1.fsyncMillis() - c0.fsyncMillis()) / fsyncs);
    }
    return w;
  }

  private static double delta(long a, long b, double perOp) {
    return a < 0 || b < 0 ? Double.NaN : (b - a) / perOp;
  }
}
