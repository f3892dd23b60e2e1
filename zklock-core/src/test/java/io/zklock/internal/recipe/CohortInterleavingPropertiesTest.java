package io.zklock.internal.recipe;

import static io.zklock.internal.engine.EngineFixture.DIR;
import static io.zklock.internal.engine.EngineFixture.NS;
import static io.zklock.internal.engine.EngineFixture.OTHER_SESSION;

import io.zklock.LockHandle;
import io.zklock.LockOptions;
import io.zklock.internal.engine.EngineFixture;
import io.zklock.internal.engine.FakeSession;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.QueueNode;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.zk.Lifecycle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.apache.zookeeper.data.Stat;

/**
 * Random interleavings of what can happen to the local requests of one cohort — replies delivered
 * or lost, the connection dropping and returning, the session expiring, local requests timing out,
 * cancelled or released, time passing (the T bound), other clients queueing and leaving, an
 * operator deleting the cohort's held node — on the engine's fakes. At every step: a request is
 * granted only on a node of ours that holds by its kind's rule, never two local holders at once in
 * exclusive mode, and fencing tokens rise in grant order. At the end, once the other clients have
 * left and every holder has released: every local request has its answer, and no node of ours is
 * left.
 */
class CohortInterleavingPropertiesTest {
  private static final int MAX_REQUESTS = 5;

  private enum Action {
    DELIVER(12),
    START(4),
    RELEASE(4),
    CANCEL(1),
    ADVANCE(2),
    OTHER_QUEUES(2),
    OTHER_LEAVES(2),
    FORCE_RELEASE(1),
    LOSE_NEXT_REPLY(1),
    CONNECTION(2),
    EXPIRE(1);

    final int weight;

    Action(int weight) {
      this.weight = weight;
    }
  }

  private static final Action[] TABLE = table();

  private static Action[] table() {
    List<Action> out = new ArrayList<>();
    for (Action a : Action.values()) {
      for (int i = 0; i < a.weight; i++) {
        out.add(a);
      }
    }
    return out.toArray(new Action[0]);
  }

  @Property(tries = 150)
  void mutex_interleavings_oneHolderAtATime_risingTokens_nothingLeftBehind(
      @ForAll @IntRange(min = 1, max = 3) int initial,
      @ForAll @Size(min = 10, max = 80) List<@IntRange(min = 0, max = 99_999) Integer> actions) {
    new Run(NodeKind.COHORT, NodeKind.COHORT).play(initial, actions);
  }

  @Property(tries = 150)
  void readSide_interleavings_grantOnlyByTheRule_risingTokens_nothingLeftBehind(
      @ForAll @IntRange(min = 1, max = 3) int initial,
      @ForAll @Size(min = 10, max = 80) List<@IntRange(min = 0, max = 99_999) Integer> actions) {
    new Run(NodeKind.COHORT_READ, NodeKind.COHORT_WRITE).play(initial, actions);
  }

  private static final class Run {
    final EngineFixture f = new EngineFixture();
    final NodeKind kind;
    final NodeKind remoteKind;
    final CohortLock lock;
    final List<CompletableFuture<LockHandle>> requests = new ArrayList<>();
    final Set<LockHandle> granted = new HashSet<>();
    final Set<String> grantedPaths = new HashSet<>();
    final List<String> log = new ArrayList<>();
    long lastToken = Long.MIN_VALUE;

    Run(NodeKind kind, NodeKind remoteKind) {
      this.kind = kind;
      this.remoteKind = remoteKind;
      RecipeContext rc = new RecipeContext(f.ctx, null, new Lifecycle(null, null), NS, null);
      LockOptions options =
          LockOptions.cohort().maxLocalHandoffs(2).maxLocalHold(Duration.ofMillis(300));
      this.lock = new CohortLock(rc, "orders", options, kind, l -> null);
    }

    void play(int initial, List<Integer> actions) {
      for (int i = 0; i < initial; i++) {
        act(Action.START, 0);
      }
      for (int a : actions) {
        act(TABLE[a % TABLE.length], a / TABLE.length);
        check();
      }
      finish();
    }

    private boolean live() {
      return f.session.state() == FakeSession.State.CONNECTED
          || f.session.state() == FakeSession.State.SUSPENDED;
    }

    void act(Action action, int arg) {
      switch (action) {
        case DELIVER -> {
          for (int i = arg % 3; i >= 0; i--) {
            step("deliver", f.zk::deliverNext);
          }
        }
        case START -> {
          if (requests.size() < MAX_REQUESTS) {
            Waiting w =
                switch (arg % 3) {
                  case 0 -> Waiting.FOREVER;
                  case 1 ->
                      Waiting.after(Duration.ofMillis(100L * (1 + arg % 7)).toNanos(), f.clock);
                  default -> Waiting.NOW;
                };
            step(
                "start#" + requests.size() + "(" + arg % 3 + ")",
                () -> requests.add(lock.start(w)));
          }
        }
        case RELEASE -> {
          List<LockHandle> held = heldHandles();
          if (!held.isEmpty()) {
            step("release", held.get(arg % held.size())::releaseAsync);
          }
        }
        case CANCEL -> {
          if (!requests.isEmpty()) {
            int i = arg % requests.size();
            step("cancel#" + i, () -> requests.get(i).cancel(true));
          }
        }
        case ADVANCE ->
            step("advance", () -> f.scheduler.advance(Duration.ofMillis(50 + 50L * (arg % 6))));
        case OTHER_QUEUES -> step("otherQueues", () -> f.otherQueues(remoteKind));
        case OTHER_LEAVES -> {
          List<String> others = nodes(false);
          if (!others.isEmpty()) {
            String victim = others.get(arg % others.size());
            step("otherLeaves", () -> f.zk.delete(victim));
          }
        }
        case FORCE_RELEASE -> {
          // a holder's node, as in the engine's interleavings (a waiter's node deleted under it is
          // the engine's case, not the cohort's)
          List<String> ours = new ArrayList<>();
          for (LockHandle h : heldHandles()) {
            if (f.zk.exists(h.path()) && !ours.contains(h.path())) {
              ours.add(h.path());
            }
          }
          if (!ours.isEmpty()) {
            String victim = ours.get(arg % ours.size());
            step("forceRelease", () -> f.zk.delete(victim));
          }
        }
        case LOSE_NEXT_REPLY -> step("loseNextReply", f.zk::loseNextReply);
        case CONNECTION -> {
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
      }
    }

    private void step(String what, Runnable r) {
      log.add(what);
      r.run();
    }

    private List<LockHandle> heldHandles() {
      List<LockHandle> out = new ArrayList<>();
      for (CompletableFuture<LockHandle> r : requests) {
        if (r.isDone() && !r.isCompletedExceptionally() && !r.isCancelled()) {
          LockHandle h = r.join();
          if (h != null && h.isHeld()) {
            out.add(h);
          }
        }
      }
      return out;
    }

    /** The nodes of the directory, ours (any session but the other client's) or the other's. */
    private List<String> nodes(boolean ours) {
      List<String> out = new ArrayList<>();
      for (String n : f.nodes()) {
        Stat st = f.zk.stat(DIR + "/" + n);
        if (st != null && (st.getEphemeralOwner() == OTHER_SESSION) != ours) {
          out.add(DIR + "/" + n);
        }
      }
      return out;
    }

    private boolean holdsNow(String path) {
      List<QueueNode> q = QueueNode.queue(f.nodes());
      int i = QueueNode.indexOf(q, path.substring(path.lastIndexOf('/') + 1));
      return i >= 0 && Ordering.forKind(q.get(i).kind()).decide(q, i) instanceof Ordering.Hold;
    }

    void check() {
      List<LockHandle> held = heldHandles();
      for (LockHandle h : held) {
        boolean fresh = granted.add(h);
        boolean exists = f.zk.exists(h.path());
        if (fresh) {
          // A node gone unheard may still be handed over in memory: the window in which its
          // holder, too, believes it holds, until the deletion's event arrives (then both hear).
          boolean handoffUnheard = !exists && grantedPaths.contains(h.path());
          if (!handoffUnheard && (!exists || !holdsNow(h.path()))) {
            fail("granted on " + h.path() + (exists ? ", which does not hold" : " (gone)"));
          }
          grantedPaths.add(h.path());
          if (h.fencingToken() <= lastToken) {
            fail("token " + h.fencingToken() + " granted after " + lastToken);
          }
          lastToken = h.fencingToken();
        } else if (exists && !holdsNow(h.path())) {
          fail("holds on " + h.path() + ", which does not hold by the rule");
        }
      }
      if (kind.exclusive() && held.size() > 1) {
        fail(held.size() + " local holders at once");
      }
    }

    /** The other clients leave, every holder releases, the session comes back; until quiet. */
    void finish() {
      log.add("| finish");
      for (int round = 0; round < 20; round++) {
        switch (f.session.state()) {
          case SUSPENDED -> f.session.reconnect();
          case LOST -> f.session.newSession(f.nextSessionId());
          default -> {}
        }
        nodes(false).forEach(f.zk::delete);
        f.settle();
        check();
        heldHandles().forEach(LockHandle::releaseAsync);
        f.settle();
        f.scheduler.advance(Duration.ofSeconds(1));
        f.settle();
      }
      for (int i = 0; i < requests.size(); i++) {
        if (!requests.get(i).isDone()) {
          fail("request #" + i + " never answered; phase " + lock.phase() + ", nodes " + f.nodes());
        }
      }
      if (!nodes(true).isEmpty()) {
        fail("nodes " + nodes(true) + " left behind; phase " + lock.phase());
      }
    }

    private void fail(String why) {
      throw new AssertionError(why + "; actions " + log);
    }
  }
}
