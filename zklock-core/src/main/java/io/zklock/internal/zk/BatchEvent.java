package io.zklock.internal.zk;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * {@code io.zklock.Batch}: one {@code multi} the {@link Batcher} sent, of creates and deletes or of
 * listings, with how many ops it carried; off unless a recording enables it (a batch size
 * distribution costs one event per batch). No recording, no cost beyond one static check.
 */
@Name("io.zklock.Batch")
@Label("Request Batch")
@Description(
    "Requests of one client sent together in one multi: creates and deletes, or listings (a"
        + " read-only multi); retried: a multi one of whose ops failed, sent again op by op")
@Category({"zklock", "Requests"})
@StackTrace(false)
@Enabled(false)
final class BatchEvent extends Event {
  private static final BatchEvent TYPE = new BatchEvent();

  @Label("Kind")
  @Description("writes (creates and deletes) or listings")
  String kind;

  @Label("Ops")
  int ops;

  @Label("Retried")
  boolean retried;

  static void writes(int ops, boolean retried) {
    commit("writes", ops, retried);
  }

  static void listings(int ops, boolean retried) {
    commit("listings", ops, retried);
  }

  private static void commit(String kind, int ops, boolean retried) {
    if (!FlightRecorder.isInitialized() || !TYPE.isEnabled()) {
      return;
    }
    BatchEvent e = new BatchEvent();
    e.kind = kind;
    e.ops = ops;
    e.retried = retried;
    e.commit();
  }
}
