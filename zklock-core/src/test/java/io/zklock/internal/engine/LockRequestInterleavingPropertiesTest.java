package io.zklock.internal.engine;

import static io.zklock.internal.engine.EngineFixture.DIR;
import static io.zklock.internal.engine.EngineFixture.OTHER_SESSION;
import static io.zklock.internal.engine.EngineFixture.SIMPLE_NODE;

import io.zklock.LockHandle;
import io.zklock.internal.engine.EngineFixture.Started;
import io.zklock.internal.engine.LockRequest.State;
import io.zklock.internal.protocol.QueueProtocol;
import io.zklock.internal.protocol.SingleNodeProtocol;
import io.zklock.internal.rules.LockDelay;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.QueueNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.apache.zookeeper.data.Stat;

/**
 * Random interleavings of what can happen to a few requests of one client — a reply delivered, lost
 * after being applied or never applied, the connection dropping and returning, the session expiring
 * (heard at once, or later than the ensemble expired it), a caller cancelling or releasing, time
 * passing, another client queueing and leaving, the instance closing — never grant the lock to two
 * holders at once, and once every reply is delivered on a connected session, leave no node of an
 * ended request behind and no live request stuck. For the queue ({@link QueueProtocol}) and for the
 * simple lock's single node ({@link SingleNodeProtocol}).
 */
class LockRequestInterleavingPropertiesTest {
  private static final int MAX_REQUESTS = 4;

  /** What can happen, and how often, relative to the others. */
  private enum Action {
    DELIVER(14),
    START(3),
    LOSE_NEXT_REPLY(1),
    DROP_NEXT_REQUEST(1),
    CONNECTION(2), // drops, or comes back, or a new session connects
    EXPIRE(1), // the ensemble expires the session and the client hears at once
    SERVER_EXPIRES(2), // the ensemble expires it; the client hears at CONNECTION or at the end
    CANCEL(2),
    RELEASE(3),
    ADVANCE(3),
    OTHER_QUEUES(2),
    OTHER_LEAVES(2),
    FORCE_RELEASE(1), // an operator deletes a holder's node
    ASK_RELEASE(1), // another client asks the holder to release (sets its node's data)
    CLOSE(0); // only where a run may close

    final int weight;

    Action(int weight) {
      this.weight = weight;
    }
  }

  private static Action[] table(boolean mayClose) {
    List<Action> out = new ArrayList<>();
    for (Action a : Action.values()) {
      int w = a == Action.CLOSE && mayClose ? 1 : a.weight;
      for (int i = 0; i < w; i++) {
        out.add(a);
      }
    }
    return out.toArray(new Action[0]);
  }

  /**
   * Each int is one action: its value modulo the table's length says which, the rest how. A run
   * begins with {@code initial} plain acquisitions, so that there is contention from the start.
   */
  @Property(tries = 200)
  void mutex_interleavings_keepMutualExclusion_andLeaveNothingBehind(
      @ForAll @IntRange(min = 0, max = 3) int initial,
      @ForAll boolean mayClose,
      @ForAll @Size(min = 10, max = 80) List<@IntRange(min = 0, max = 99_999) Integer> actions) {
    new Run(Flavor.MUTEX, table(mayClose)).play(initial, actions);
  }

  @Property(tries = 150)
  void simple_interleavings_keepMutualExclusion_andLeaveNothingBehind(
      @ForAll @IntRange(min = 0, max = 3) int initial,
      @ForAll boolean mayClose,
      @ForAll @Size(min = 10, max = 80) List<@IntRange(min = 0, max = 99_999) Integer> actions) {
    new Run(Flavor.SIMPLE, table(mayClose)).play(initial, actions);
  }

  /** Readers and writers: a holder is always one its kind's rule grants on the current queue. */
  @Property(tries = 150)
  void readWrite_interleavings_grantOnlyByTheRule_andLeaveNothingBehind(
      @ForAll @IntRange(min = 0, max = 3) int initial,
      @ForAll boolean mayClose,
      @ForAll @Size(min = 10, max = 80) List<@IntRange(min = 0, max = 99_999) Integer> actions) {
    new Run(Flavor.READ_WRITE, table(mayClose)).play(initial, actions);
  }

  /** Leases of a semaphore of two permits (the wait on the whole queue, not on one node). */
  @Property(tries = 150)
  void semaphore_interleavings_grantOnlyByTheRule_andLeaveNothingBehind(
      @ForAll @IntRange(min = 0, max = 3) int initial,
      @ForAll boolean mayClose,
      @ForAll @Size(min = 10, max = 80) List<@IntRange(min = 0, max = 99_999) Integer> actions) {
    new Run(Flavor.SEMAPHORE, table(mayClose)).play(initial, actions);
  }

  /**
   * The mutex with a lock-delay: besides the checks of every run, a grant never comes sooner than
   * the delay after a holder's node went without its release record (its session expired, or it was
   * deleted by another: see {@link Run#checkDelay}).
   */
  @Property(tries = 200)
  void delayedMutex_interleavings_keepMutualExclusion_andTheDelayAfterEveryFailure(
      @ForAll @IntRange(min = 0, max = 3) int initial,
      @ForAll boolean mayClose,
      @ForAll @Size(min = 10, max = 80) List<@IntRange(min = 0, max = 99_999) Integer> actions) {
    new Run(Flavor.MUTEX_DELAYED, table(mayClose)).play(initial, actions);
  }

  /**
   * The same interleavings with the session's requests batched ({@link
   * io.zklock.internal.zk.Batcher}): creates and deletes of several requests in one multi, listings
   * in one read-only multi, each multi's reply delivered, lost after being applied or never applied
   * like any other request's, split by a connection loss, spanning an expiry, and sent again op by
   * op when one of its ops fails (a node another client deleted). {@code atOnceBelow} 1 batches
   * everything issued while a request is in flight.
   */
  @Property(tries = 200)
  void batched_interleavings_keepEveryPropertyOfTheUnbatchedRuns(
      @ForAll @IntRange(min = 1, max = 3) int atOnceBelow,
      @ForAll("flavors") Flavor flavor,
      @ForAll @IntRange(min = 0, max = 3) int initial,
      @ForAll boolean mayClose,
      @ForAll @Size(min = 10, max = 80) List<@IntRange(min = 0, max = 99_999) Integer> actions) {
    new Run(flavor, table(mayClose), EngineFixture.batched(atOnceBelow)).play(initial, actions);
  }

  @net.jqwik.api.Provide
  net.jqwik.api.Arbitrary<Flavor> flavors() {
    return net.jqwik.api.Arbitraries.of(Flavor.class);
  }

  /** The lock-delay of {@link Flavor#MUTEX_DELAYED}. */
  private static final Duration DELAY = Duration.ofMillis(300);

  /** Which lock the requests of a run are for. */
  private enum Flavor {
    MUTEX,
    MUTEX_DELAYED,
    SIMPLE,
    READ_WRITE,
    SEMAPHORE;

    static final Ordering.Rule TWO_PERMITS = Ordering.lease(2);

    /** The kind of a request (or another client's node), chosen by {@code arg}. */
    NodeKind kind(int arg) {
      return switch (this) {
        case MUTEX, MUTEX_DELAYED -> NodeKind.MUTEX;
        case SIMPLE -> NodeKind.SIMPLE;
        case READ_WRITE -> arg % 2 == 0 ? NodeKind.READ : NodeKind.WRITE;
        case SEMAPHORE -> NodeKind.SEMAPHORE;
      };
    }

    Ordering.Rule rule(NodeKind kind) {
      return this == SEMAPHORE ? TWO_PERMITS : Ordering.forKind(kind);
    }
  }

  private static final class Run {
    final EngineFixture f;
    final Flavor flavor;
    final boolean simple;
    final Action[] table;
    final List<Started> requests = new ArrayList<>();
    final List<String> log = new ArrayList<>();
    final Set<LockRequest> wasHeld = new HashSet<>();

    /** Lock-delay: grants that came too soon, as found at their moment. */
    final List<String> tooSoon = new ArrayList<>();

    /** Lock-delay: when a holder's node last went without its release record (ns), or none. */
    long lastFailure = Long.MIN_VALUE;

    Run(Flavor flavor, Action[] table) {
      this(flavor, table, new EngineFixture());
    }

    Run(Flavor flavor, Action[] table, EngineFixture f) {
      this.f = f;
      this.flavor = flavor;
      this.simple = flavor == Flavor.SIMPLE;
      this.table = table;
    }

    private Started start(int how, int kindArg, long timeout) {
      if (simple) {
        return switch (how) {
          case 0 -> f.simple(false, 0, false);
          case 1 -> f.simple(false, timeout, true);
          default -> f.simple(true, 0, false);
        };
      }
      if (flavor == Flavor.MUTEX_DELAYED) {
        Started s =
            switch (how) {
              case 0 -> f.delayedMutex(DELAY, false, 0, false);
              case 1 -> f.delayedMutex(DELAY, false, timeout, true);
              default -> f.delayedMutex(DELAY, true, 0, false);
            };
        // checked at the grant's own moment on the fake clock (a delayed grant runs inside an
        // advance), against the failures of the actions before
        s.future()
            .thenAccept(
                h -> {
                  if (h != null) { // null: a busy tryAcquire
                    checkGrantTime(f.clock.nanoTime());
                  }
                });
        return s;
      }
      NodeKind kind = flavor.kind(kindArg);
      Ordering.Rule rule = flavor.rule(kind);
      return switch (how) {
        case 0 -> f.queue(kind, rule, false, 0, false);
        case 1 -> f.queue(kind, rule, false, timeout, true);
        default -> f.queue(kind, rule, true, 0, false);
      };
    }

    void play(int initial, List<Integer> actions) {
      for (int i = 0; i < initial; i++) {
        act(Action.START, 0); // a plain acquire
      }
      for (int a : actions) {
        String holder = flavor == Flavor.MUTEX_DELAYED ? holderNode() : null;
        act(table[a % table.length], a / table.length);
        if (holder != null) {
          checkDelay(holder);
        }
        checkExclusion();
      }
      finish();
      checkExclusion();
      checkSettled();
    }

    private boolean live() {
      return f.session.state() == FakeSession.State.CONNECTED
          || f.session.state() == FakeSession.State.SUSPENDED;
    }

    void act(Action action, int arg) {
      switch (action) {
        case DELIVER -> {
          for (int i = arg % 3; i >= 0; i--) { // one to three deliveries
            step("deliver", f.zk::deliverNext);
          }
        }
        case START -> {
          if (requests.size() < MAX_REQUESTS) {
            long timeout = Duration.ofMillis(200 + 100L * (arg % 20)).toNanos();
            Started s = start(arg % 3, arg / 3, timeout);
            requests.add(s);
            log.add(
                "start#"
                    + (requests.size() - 1)
                    + "("
                    + (simple ? "" : flavor.kind(arg / 3).prefix() + ",")
                    + arg % 3
                    + ")");
          }
        }
        case LOSE_NEXT_REPLY -> step("loseNextReply", f.zk::loseNextReply);
        case DROP_NEXT_REQUEST -> step("dropNextRequest", f.zk::dropNextRequest);
        case CONNECTION -> {
          if (live() && f.zk.isExpired(f.session.sessionId())) {
            step("expiryHeard", f.session::expire);
            return;
          }
          switch (f.session.state()) {
            case CONNECTED -> step("disconnect", f.session::disconnect);
            case SUSPENDED -> step("reconnect", f.session::reconnect);
            case LOST -> step("newSession", () -> f.session.newSession(f.nextSessionId()));
            default -> {}
          }
        }
        case EXPIRE -> {
          if (live()) {
            step("expire", f.session::expire);
          }
        }
        case SERVER_EXPIRES -> {
          // The ensemble expires a session only after hearing nothing from it for the session
          // timeout, so what it sent before that silence has reached the client: deliver it first.
          // (Else a grant by an event that predates the expiry would look like a grant on a dead
          // session; it is the paused holder's case, which no lock can avoid.) What the expiry
          // itself fires, our own nodes' deletions, may still reach the client: that is the case
          // the engine must not take for a handoff.
          long sid = f.session.sessionId();
          if (live() && !f.zk.isExpired(sid)) {
            step(
                "serverExpires",
                () -> {
                  f.zk.deliverSent();
                  checkExclusion();
                  f.zk.expire(sid);
                });
          }
        }
        case CANCEL -> {
          if (!requests.isEmpty()) {
            int i = arg % requests.size();
            step("cancel#" + i, () -> requests.get(i).future().cancel(true));
          }
        }
        case RELEASE -> {
          if (!requests.isEmpty()) {
            int i = arg % requests.size();
            LockHandle h = handleOf(requests.get(i));
            if (h != null) {
              step("release#" + i, h::releaseAsync);
            }
          }
        }
        case ADVANCE ->
            step("advance", () -> f.scheduler.advance(Duration.ofMillis(10 + 40L * (arg % 10))));
        case OTHER_QUEUES -> {
          if (!simple) {
            NodeKind kind = flavor.kind(arg);
            step("otherQueues(" + kind.prefix() + ")", () -> f.otherQueues(kind));
          } else if (!f.zk.exists(SIMPLE_NODE)) {
            step("otherTakes", f::otherHoldsSimple);
          }
        }
        case OTHER_LEAVES -> {
          List<String> others = otherNodes();
          if (!others.isEmpty()) {
            String victim = others.get(arg % others.size());
            step("otherLeaves", () -> f.zk.delete(victim));
          }
        }
        case FORCE_RELEASE, ASK_RELEASE -> {
          List<LockRequest> holders = new ArrayList<>();
          for (Started s : requests) {
            if (s.state() == State.HELD && nodeExists(s.request())) {
              holders.add(s.request());
            }
          }
          if (!holders.isEmpty()) {
            String path = holders.get(arg % holders.size()).path();
            if (action == Action.FORCE_RELEASE && simple) {
              // not for the simple lock: a holder that has not heard of it yet would delete the
              // next holder's node on release (the known limit of LockRequestTest
              // simple_releaseAfterAForcedDeletion_leavesTheNextHoldersNode)
              return;
            }
            if (action == Action.FORCE_RELEASE) {
              step("forceRelease", () -> f.zk.delete(path));
            } else {
              step("askRelease", () -> f.zk.setData(path, new byte[] {1}));
            }
          }
        }
        case CLOSE -> step("close", f.session::close);
      }
    }

    private static LockHandle handleOf(Started s) {
      CompletableFutureState st = CompletableFutureState.of(s);
      return st == CompletableFutureState.HANDLE ? s.future().join() : null;
    }

    private void step(String what, Runnable r) {
      log.add(what);
      r.run();
    }

    private List<String> ourAndOtherNodes(boolean ours) {
      List<String> out = new ArrayList<>();
      for (String n : f.nodes()) {
        Stat st = f.zk.stat(DIR + "/" + n);
        if ((st.getEphemeralOwner() == OTHER_SESSION) != ours) {
          out.add(DIR + "/" + n);
        }
      }
      return out;
    }

    private List<String> otherNodes() {
      return ourAndOtherNodes(false);
    }

    /**
     * Whether the node {@code path} holds the lock now: by its kind's rule on the queue as it is,
     * or, for the simple lock, by being the one node.
     */
    private boolean holdsNow(String path) {
      if (simple) {
        return f.zk.exists(path);
      }
      List<QueueNode> q = QueueNode.queue(f.nodes());
      int i = QueueNode.indexOf(q, path.substring(path.lastIndexOf('/') + 1));
      return i >= 0 && flavor.rule(q.get(i).kind()).decide(q, i) instanceof Ordering.Hold;
    }

    /** Whether request {@code r}'s own node is in the tree (for the simple lock: this very one). */
    private boolean nodeExists(LockRequest r) {
      String path = r.path();
      Stat st = path == null ? null : f.zk.stat(path);
      return st != null && st.getCzxid() == r.fencingToken();
    }

    /**
     * A request is granted only with its own node in place, holding the lock (so on a live session,
     * and alone); a holder whose node still exists holds the lock. Together: never two holders at
     * once, ours or another client's. (A holder whose session the ensemble expired unheard has no
     * node; it learns of the loss when the client hears: the case no lock can avoid, see
     * docs/guarantees.md.)
     */
    void checkExclusion() {
      int live = 0;
      for (int i = 0; i < requests.size(); i++) {
        LockRequest r = requests.get(i).request();
        if (r.state() != State.HELD) {
          wasHeld.remove(r);
          continue;
        }
        boolean exists = nodeExists(r);
        boolean fresh = wasHeld.add(r);
        if ((fresh && !exists) || (exists && !holdsNow(r.path()))) {
          throw new AssertionError(
              "request #"
                  + i
                  + (fresh ? " was granted" : " holds")
                  + " with node "
                  + r.path()
                  + (exists ? ", which does not hold by the rule" : " (gone)")
                  + "; the queue is "
                  + f.nodes()
                  + "; actions "
                  + log);
        }
        if (exists) {
          live++;
        }
      }
      if (live > 1 && (flavor == Flavor.MUTEX || flavor == Flavor.MUTEX_DELAYED || simple)) {
        throw new AssertionError(live + " requests HELD at once; actions " + log);
      }
    }

    /**
     * The node that holds the lock now, as a grant's end would count it: the head of the queue if
     * it is another client's (it stands for a holder) or the node of one of our requests that
     * holds; null if none.
     */
    private String holderNode() {
      List<QueueNode> q = QueueNode.queue(f.nodes());
      if (q.isEmpty()) {
        return null;
      }
      String head = DIR + "/" + q.get(0).name();
      Stat st = f.zk.stat(head);
      if (st != null && st.getEphemeralOwner() == OTHER_SESSION) {
        return head;
      }
      for (Started s : requests) {
        if (s.state() == State.HELD && head.equals(s.request().path()) && nodeExists(s.request())) {
          return head;
        }
      }
      return null;
    }

    /**
     * Lock-delay: {@code holder} held before the last action; if it is gone without the release
     * record naming it, that action ended a grant by failure, now. And no grant of ours comes
     * sooner than the delay after the last failure (ZooKeeper's times are whole milliseconds, and
     * the fake clock here moves by whole milliseconds too).
     */
    void checkDelay(String holder) {
      if (!f.zk.exists(holder)) {
        String released = LockDelay.releasedNode(f.zk.data(DIR));
        if (!holder.endsWith("/" + released)) {
          lastFailure = f.clock.nanoTime();
          log.add("(failure of " + holder.substring(holder.lastIndexOf('/') + 1) + ")");
        }
      }
      if (!tooSoon.isEmpty()) {
        fail(tooSoon.toString());
      }
    }

    /** Lock-delay: a grant at {@code now} (fake clock, ns) is not sooner than the delay allows. */
    private void checkGrantTime(long now) {
      if (lastFailure != Long.MIN_VALUE && now - lastFailure < DELAY.toNanos()) {
        tooSoon.add(
            "a request was granted "
                + Duration.ofNanos(now - lastFailure).toMillis()
                + " ms after a holder's failure, within the lock-delay of "
                + DELAY.toMillis()
                + " ms");
      }
    }

    /** Reconnects, delivers everything, lets every timer run. */
    void finish() {
      log.add("| finish");
      for (int round = 0; round < 5; round++) {
        if (live() && f.zk.isExpired(f.session.sessionId())) {
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
      boolean closed = f.session.state() == FakeSession.State.CLOSED;
      List<String> ours = ourAndOtherNodes(true);
      for (int i = 0; i < requests.size(); i++) {
        Started s = requests.get(i);
        LockRequest r = s.request();
        State st = r.state();
        if (st.ended()) {
          if (nodeExists(r)) {
            fail("request #" + i + " is " + st + " but its node " + r.path() + " is left");
          }
          if (st == State.WITHDRAWN && !s.future().isDone()) {
            fail("request #" + i + " is WITHDRAWN, its future open");
          }
          continue;
        }
        if (closed) {
          fail("request #" + i + " is " + st + " after close");
        }
        if (st != State.WAITING && st != State.HELD) {
          fail("request #" + i + " stuck in " + st + " on a connected, settled session");
        }
        boolean handed = CompletableFutureState.of(s) == CompletableFutureState.HANDLE;
        if ((st == State.HELD) != handed) {
          fail("request #" + i + " is " + st + " but its future is " + s.future());
        }
        if (st == State.HELD) {
          if (!nodeExists(r)) {
            fail("request #" + i + " is HELD without its node " + r.path());
          }
          ours.remove(r.path());
        } else if (!simple) {
          if (!nodeExists(r)) {
            fail("request #" + i + " waits without its node " + r.path());
          }
          ours.remove(r.path());
        }
      }
      if (!ours.isEmpty()) {
        fail("nodes " + ours + " belong to no live request");
      }
      for (int i = 0; i < requests.size(); i++) {
        LockRequest r = requests.get(i).request();
        if (r.state() != State.WAITING) {
          continue;
        }
        if (simple ? !f.zk.exists(SIMPLE_NODE) : holdsNow(r.path())) {
          fail("request #" + i + " waits, but nothing stands in its way: " + f.nodes());
        }
      }
    }

    private void fail(String why) {
      throw new AssertionError(why + "; actions " + log);
    }
  }

  /** How a caller's future ended. */
  private enum CompletableFutureState {
    OPEN,
    HANDLE,
    NULL,
    FAILED;

    static CompletableFutureState of(Started s) {
      var fut = s.future();
      if (!fut.isDone()) {
        return OPEN;
      }
      if (fut.isCompletedExceptionally()) {
        return FAILED;
      }
      return fut.join() == null ? NULL : HANDLE;
    }
  }
}
