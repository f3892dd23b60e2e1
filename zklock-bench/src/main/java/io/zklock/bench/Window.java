package io.zklock.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One measurement window of one implementation in one repetition.
 *
 * @param value the scenario's primary figure (a rate, or watch events per acquisition, ...)
 * @param ops operations completed in the window
 * @param requestsPerOp client packets the server received per operation ({@code
 *     zk_packets_received} difference): the protocol cost, counted by the server
 * @param watchEventsPerOp watch notifications the server triggered per operation
 * @param extra further figures of the scenario, by name
 */
record Window(
    double value,
    long ops,
    double requestsPerOp,
    double watchEventsPerOp,
    Map<String, Double> extra) {

  static Window of(double value, long ops, double requestsPerOp, double watchEventsPerOp) {
    return new Window(value, ops, requestsPerOp, watchEventsPerOp, new LinkedHashMap<>());
  }
}
