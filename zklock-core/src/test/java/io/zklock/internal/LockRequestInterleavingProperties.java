package io.zklock.internal;

import static io.zklock.internal.EngineFixture.DIR;
import static io.zklock.internal.EngineFixture.OTHER_SESSION;

import io.zklock.LockHandle;
import io.zklock.internal.EngineFixture.Started;
import io.zklock.internal.LockRequest.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Random interleavings of what can happen to a few requests of one client — a reply delivered, lost
 * after being applied or never applied, the connection dropping and returning, the session
 * expiring, a caller cancelling or releasing, time passing, another client queueing and leaving —
 * never grant the lock to two holders at once, and once every reply is delivered on a connected
 * session, leave no node of an ended request behind and no live request stuck.
 */
class LockRequestInterleavingProperties {
  private static final int MAX_REQUESTS = 4;

  /**
   * How often each kind of action comes, out of {@code WEIGHTS.length}: the index is the kind of
   * {@link Run#act}. Deliveries are the most frequent, so that requests get far between faults.
   */
  private static final int[] KINDS = kinds(14, 3, 1, 1, 2, 1, 2, 3, 3, 2, 2, 2);

  private static int[] kinds(int... weights) {
    List<Integer> out = new ArrayList<>();
    for (int kind = 0; kind < weights.length; kind++) {
      for (int j = 0; j < weights[kind]; j++) {
        out.add(kind == weights.length - 1 ? 14 : kind == 0 ? 0 : kind + 3);
      }
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Each int is one action: its value modulo the number of kinds says which, the rest how. The run
   * begins with {@code initial} plain acquisitions, so that there is contention from the start.
   */
  @Property(tries = 400)
  void interleavings_keepMutualExclusion_andLeaveNoNodeOfAnEndedRequest(
      @ForAll @IntRange(min = 0, max = 3) int initial,
      @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 99_999) Integer> actions) {
    Run run = new Run();
    for (int i = 0; i < initial; i++) {
      run.act(4, 0); // a plain acquire
    }
    for (int a : actions) {
      run.act(a);
      run.checkExclusion();
    }
    run.finish();
    run.checkExclusion();
    run.checkSettled();
  }

  private static final class Run {
    final EngineFixture f = new EngineFixture();
    final List<Started> requests = new ArrayList<>();
    final List<String> log = new ArrayList<>();

    void act(int a) {
      act(KINDS[a % KINDS.length], a / KINDS.length);
    }

    void act(int kind, int arg) {
      switch (kind) {
        case 0 -> step("deliver", f.zk::deliverNext);
        case 4 -> {
          if (requests.size() < MAX_REQUESTS) {
            Started s =
                switch (arg % 3) {
                  case 0 -> f.acquire();
                  case 1 -> f.acquire(Duration.ofMillis(200 + 100L * (arg % 20)));
                  default -> f.tryAcquire();
                };
            requests.add(s);
            log.add("start#" + (requests.size() - 1) + "(" + arg % 3 + ")");
          }
        }
        case 5 -> step("loseNextReply", f.zk::loseNextReply);
        case 6 -> step("dropNextRequest", f.zk::dropNextRequest);
        case 7 -> {
          switch (f.session.state()) {
            case CONNECTED -> step("disconnect", f.session::disconnect);
            case SUSPENDED -> step("reconnect", f.session::reconnect);
            case LOST -> step("newSession", () -> f.session.newSession(f.nextSessionId()));
            default -> {}
          }
        }
        case 8 -> {
          if (f.session.state() == FakeSession.State.CONNECTED
              || f.session.state() == FakeSession.State.SUSPENDED) {
            step("expire", f.session::expire);
          }
        }
        case 9 -> {
          if (!requests.isEmpty()) {
            int i = arg % requests.size();
            step("cancel#" + i, () -> requests.get(i).future().cancel(true));
          }
        }
        case 10 -> {
          if (!requests.isEmpty()) {
            int i = arg % requests.size();
            Started s = requests.get(i);
            if (s.future().isDone()
                && !s.future().isCompletedExceptionally()
                && !s.future().isCancelled()) {
              LockHandle h = s.future().join();
              if (h != null) {
                step("release#" + i, h::releaseAsync);
              }
            }
          }
        }
        case 11 ->
            step("advance", () -> f.scheduler.advance(Duration.ofMillis(10 + 40L * (arg % 10))));
        case 12 -> step("otherQueues", f::otherQueues);
        case 13 -> {
          List<String> others = otherNodes();
          if (!others.isEmpty()) {
            String victim = others.get(arg % others.size());
            step("otherLeaves", () -> f.zk.delete(victim));
          }
        }
        case 14 -> {
          // the ensemble expires the session; the client hears later (action 8, or at the end)
          long sid = f.session.sessionId();
          if (!f.zk.isExpired(sid) && f.session.state() != FakeSession.State.CLOSED) {
            step("serverExpires", () -> f.zk.expire(sid));
          }
        }
        default -> throw new AssertionError(kind);
      }
    }

    private void step(String what, Runnable r) {
      log.add(what);
      r.run();
    }

    private List<String> otherNodes() {
      List<String> out = new ArrayList<>();
      for (String n : f.nodes()) {
        if (f.zk.stat(DIR + "/" + n).getEphemeralOwner() == OTHER_SESSION) {
          out.add(DIR + "/" + n);
        }
      }
      return out;
    }

    /** The head of the queue (in queue order), or null. */
    private String head() {
      List<QueueNode> q = QueueNode.queue(f.nodes());
      return q.isEmpty() ? null : DIR + "/" + q.get(0).name();
    }

    private final java.util.Set<LockRequest> wasHeld = new java.util.HashSet<>();

    /**
     * A request is granted only with its node in place, at the head of the queue (so on a live
     * session, and alone); a holder's node that still exists heads the queue. Together: never two
     * holders at once, ours or another client's. (A holder whose session the ensemble expired
     * unheard has no node; it learns of the loss when the client hears — the case no lock can
     * avoid, docs/guarantees.md.)
     */
    void checkExclusion() {
      String head = head();
      int live = 0;
      for (int i = 0; i < requests.size(); i++) {
        LockRequest r = requests.get(i).request();
        if (r.state() != State.HELD) {
          wasHeld.remove(r);
          continue;
        }
        String path = r.path();
        boolean exists = path != null && f.zk.exists(path);
        boolean fresh = wasHeld.add(r);
        if ((fresh && !exists) || (exists && !path.equals(head))) {
          throw new AssertionError(
              "request #"
                  + i
                  + (fresh ? " was granted" : " holds")
                  + " with node "
                  + path
                  + (exists ? "" : " (gone)")
                  + " but the queue is "
                  + QueueNode.queue(f.nodes())
                  + "; actions "
                  + log);
        }
        if (exists) {
          live++;
        }
      }
      if (live > 1) {
        throw new AssertionError(live + " requests HELD at once; actions " + log);
      }
    }

    /** Reconnects, delivers everything, lets every timer run. */
    void finish() {
      log.add("| finish");
      for (int round = 0; round < 5; round++) {
        if (f.zk.isExpired(f.session.sessionId())
            && (f.session.state() == FakeSession.State.CONNECTED
                || f.session.state() == FakeSession.State.SUSPENDED)) {
          f.session.expire(); // the client hears of the expiry at last
        }
        switch (f.session.state()) {
          case SUSPENDED -> f.session.reconnect();
          case LOST -> f.session.newSession(f.nextSessionId());
          default -> {}
        }
        f.settle();
        f.scheduler.advance(Duration.ofSeconds(5));
        f.settle();
      }
    }

    void checkSettled() {
      List<String> ours = new ArrayList<>();
      for (String n : f.nodes()) {
        if (f.zk.stat(DIR + "/" + n).getEphemeralOwner() != OTHER_SESSION) {
          ours.add(DIR + "/" + n);
        }
      }
      for (int i = 0; i < requests.size(); i++) {
        Started s = requests.get(i);
        State st = s.state();
        String path = s.request().path();
        if (st.ended()) {
          if (path != null && f.zk.exists(path)) {
            throw new AssertionError(
                "request #"
                    + i
                    + " is "
                    + st
                    + " but its node "
                    + path
                    + " is left; actions "
                    + log);
          }
          if (st == State.WITHDRAWN && !s.future().isDone()) {
            throw new AssertionError("request #" + i + " WITHDRAWN, future open; actions " + log);
          }
        } else {
          if (st != State.WAITING && st != State.HELD) {
            throw new AssertionError(
                "request #"
                    + i
                    + " stuck in "
                    + st
                    + " on a connected, settled session; actions "
                    + log);
          }
          if (st
              == State.HELD
              != (s.future().isDone()
                  && !s.future().isCompletedExceptionally()
                  && s.future().join() != null)) {
            throw new AssertionError(
                "request #"
                    + i
                    + " is "
                    + st
                    + " but its future is "
                    + s.future()
                    + "; actions "
                    + log);
          }
          if (path == null || !f.zk.exists(path)) {
            throw new AssertionError(
                "request #" + i + " is " + st + " without its node (" + path + "); actions " + log);
          }
          ours.remove(path);
        }
      }
      if (!ours.isEmpty()) {
        throw new AssertionError("orphaned nodes " + ours + " of no live request; actions " + log);
      }
      String head = head();
      if (head != null && f.zk.stat(head).getEphemeralOwner() != OTHER_SESSION) {
        boolean granted =
            requests.stream()
                .anyMatch(s -> s.state() == State.HELD && head.equals(s.request().path()));
        if (!granted) {
          throw new AssertionError(
              "our node " + head + " heads the queue, not granted; actions " + log);
        }
      }
    }
  }
}
