package io.zklock.internal.recipe;

import static io.zklock.internal.engine.EngineFixture.NS;
import static io.zklock.internal.engine.EngineFixture.OTHER_SESSION;
import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.LockHandle;
import io.zklock.internal.engine.EngineFixture;
import io.zklock.internal.engine.FakeSession;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.QueueNode;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.zk.Lifecycle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;

/**
 * A multi-lock across session expiries, on the engine's fakes with the library's executor deferred
 * (so that what it tells, a part's loss, can come after a new session connected, as on a loaded
 * machine): a part is created only while the parts before it are held on the same session. A
 * session that ends while the acquisition waits for a later part brings it back through its first
 * part, in the canonical order, as a new acquisition; the part it waited for is not created again
 * on the new session ahead of the parts before it.
 */
class MultiLockSessionPropertiesTest {
  private static final String[] NAMES = {"a", "b", "c"};

  /** The client under test, its parts, and every create of the run checked as it is applied. */
  private static final class World {
    final EngineFixture f = EngineFixture.deferred();
    final RecipeContext rc = new RecipeContext(f.ctx, null, new Lifecycle(null, null), NS, null);
    final List<NodeLock> parts = new ArrayList<>();
    final List<String> violations = new ArrayList<>();
    final List<String> log = new ArrayList<>();

    World(int count) {
      for (int i = 0; i < count; i++) {
        parts.add(NodeLock.queue(rc, NAMES[i], NodeKind.MUTEX));
        f.zk.mkdirs(NS + "/" + NAMES[i]);
      }
      f.zk.onCreate(this::created);
    }

    MultiLock multi() {
      return MultiLock.of(rc, parts.toArray(new NodeLock[0]));
    }

    int partOf(String path) {
      for (int i = 0; i < parts.size(); i++) {
        if (path.startsWith(NS + "/" + NAMES[i] + "/")) {
          return i;
        }
      }
      return -1;
    }

    /** A node of ours in part k: only while each earlier part has one of ours, held. */
    void created(long owner, String path) {
      int k = partOf(path);
      if (owner == OTHER_SESSION || k <= 0) {
        return;
      }
      for (int i = 0; i < k; i++) {
        if (!holdsOn(i, owner)) {
          violations.add(
              "a node of part "
                  + NAMES[k]
                  + " created on session 0x"
                  + Long.toHexString(owner)
                  + " while that session held nothing of part "
                  + NAMES[i]
                  + " ("
                  + f.zk.children(NS + "/" + NAMES[i])
                  + ")");
          return;
        }
      }
    }

    /** Whether session {@code owner} has the node at the head of part {@code i}'s queue. */
    boolean holdsOn(int i, long owner) {
      String dir = NS + "/" + NAMES[i];
      List<QueueNode> q = QueueNode.queue(f.zk.children(dir));
      if (q.isEmpty()) {
        return false;
      }
      Stat st = f.zk.stat(dir + "/" + q.get(0).name());
      return st != null && st.getEphemeralOwner() == owner;
    }

    String otherQueues(int i) {
      return f.zk.create(
          OTHER_SESSION,
          NS + "/" + NAMES[i] + "/" + QueueNode.prefix(NodeKind.MUTEX, QueueNode.newAttemptId()),
          new byte[0],
          CreateMode.EPHEMERAL_SEQUENTIAL);
    }

    void settle() {
      for (int i = 0; i < 50 && (f.zk.pending() > 0 || f.hasTasks()); i++) {
        f.zk.deliverAll();
        f.runTasks();
      }
    }
  }

  @Example
  void sessionEndsWhileWaitingForTheSecondPart_theFirstIsCreatedFirstOnTheNewSession() {
    // Given a multi-lock of a and b holding a, waiting for b behind another client
    World w = new World(2);
    String other = w.otherQueues(1);
    CompletableFuture<LockHandle> multi = w.multi().start(Waiting.FOREVER);
    w.settle();
    assertThat(w.holdsOn(0, w.f.session.sessionId())).as("holds a").isTrue();
    assertThat(multi).isNotDone();

    // When its session expires and a new one connects before the executor tells of a's loss
    w.f.session.expire();
    w.f.session.newSession(w.f.nextSessionId());
    w.settle();

    // Then it queues for a again, then for b: b's node is never made before a's is held
    assertThat(w.violations).isEmpty();
    assertThat(w.holdsOn(0, w.f.session.sessionId())).as("holds a on the new session").isTrue();
    assertThat(multi).isNotDone();
    w.f.zk.delete(other);
    w.settle();
    assertThat(multi).isCompletedWithValueMatching(h -> h != null && h.isHeld());
    assertThat(w.violations).isEmpty();
  }

  private enum Action {
    DELIVER(10),
    TASKS(4),
    START(3),
    RELEASE(3),
    CANCEL(1),
    OTHER_QUEUES(3),
    OTHER_LEAVES(3),
    EXPIRE(2),
    CONNECTION(2),
    ADVANCE(1),
    LOSE_NEXT_REPLY(1);

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

  @Property(tries = 300)
  void interleavings_partsOnlyBehindTheHeldOnes_oneHolderPerLock_noStall(
      @ForAll @IntRange(min = 2, max = 3) int partCount,
      @ForAll @Size(min = 10, max = 90) List<@IntRange(min = 0, max = 99_999) Integer> actions) {
    World w = new World(partCount);
    List<CompletableFuture<LockHandle>> requests = new ArrayList<>();
    for (int a : actions) {
      Action action = TABLE[a % TABLE.length];
      int arg = a / TABLE.length;
      w.log.add(action + "(" + arg % 7 + ")");
      switch (action) {
        case DELIVER -> {
          for (int i = arg % 3; i >= 0; i--) {
            w.f.zk.deliverNext();
          }
        }
        case TASKS -> w.f.runTasks();
        case START -> {
          if (requests.size() < 3) {
            Waiting waiting =
                arg % 3 == 0
                    ? Waiting.after(Duration.ofMillis(200L * (1 + arg % 5)).toNanos(), w.f.clock)
                    : Waiting.FOREVER;
            requests.add(w.multi().start(waiting));
          }
        }
        case RELEASE -> {
          List<LockHandle> held = held(requests);
          if (!held.isEmpty()) {
            held.get(arg % held.size()).releaseAsync();
          }
        }
        case CANCEL -> {
          if (!requests.isEmpty()) {
            requests.get(arg % requests.size()).cancel(true);
          }
        }
        case OTHER_QUEUES -> w.otherQueues(arg % partCount);
        case OTHER_LEAVES -> {
          String dir = NS + "/" + NAMES[arg % partCount];
          for (String n : w.f.zk.children(dir)) {
            if (w.f.zk.stat(dir + "/" + n).getEphemeralOwner() == OTHER_SESSION) {
              w.f.zk.delete(dir + "/" + n);
              break;
            }
          }
        }
        case EXPIRE -> {
          if (w.f.session.state() == FakeSession.State.CONNECTED
              || w.f.session.state() == FakeSession.State.SUSPENDED) {
            w.f.session.expire();
          }
        }
        case CONNECTION -> {
          switch (w.f.session.state()) {
            case CONNECTED -> w.f.session.disconnect();
            case SUSPENDED -> w.f.session.reconnect();
            case LOST -> w.f.session.newSession(w.f.nextSessionId());
            default -> {}
          }
        }
        case ADVANCE -> w.f.scheduler.advance(Duration.ofMillis(100L * (1 + arg % 5)));
        case LOSE_NEXT_REPLY -> w.f.zk.loseNextReply();
      }
      check(w, requests, partCount);
    }
    // the faults stop, the other client leaves, every holder releases: everything is answered
    w.log.add("| finish");
    for (int round = 0; round < 20; round++) {
      switch (w.f.session.state()) {
        case SUSPENDED -> w.f.session.reconnect();
        case LOST -> w.f.session.newSession(w.f.nextSessionId());
        default -> {}
      }
      for (int i = 0; i < partCount; i++) {
        String dir = NS + "/" + NAMES[i];
        for (String n : w.f.zk.children(dir)) {
          if (w.f.zk.stat(dir + "/" + n).getEphemeralOwner() == OTHER_SESSION) {
            w.f.zk.delete(dir + "/" + n);
          }
        }
      }
      w.settle();
      check(w, requests, partCount);
      held(requests).forEach(LockHandle::releaseAsync);
      w.settle();
      w.f.scheduler.advance(Duration.ofSeconds(2));
      w.settle();
    }
    for (int i = 0; i < requests.size(); i++) {
      if (!requests.get(i).isDone()) {
        throw new AssertionError("acquisition #" + i + " never answered; actions " + w.log);
      }
    }
    for (int i = 0; i < partCount; i++) {
      List<String> left = w.f.zk.children(NS + "/" + NAMES[i]);
      if (!left.isEmpty()) {
        throw new AssertionError("left in " + NAMES[i] + ": " + left + "; actions " + w.log);
      }
    }
  }

  private static List<LockHandle> held(List<CompletableFuture<LockHandle>> requests) {
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

  /**
   * The same door, and at most one holder of each lock: every held set's parts lead their queues.
   */
  private static void check(World w, List<CompletableFuture<LockHandle>> requests, int partCount) {
    if (!w.violations.isEmpty()) {
      throw new AssertionError(w.violations.get(0) + "; actions " + w.log);
    }
    List<LockHandle> held = held(requests);
    if (held.size() > 1) {
      throw new AssertionError(held.size() + " multi-locks held at once; actions " + w.log);
    }
    for (LockHandle h : held) {
      for (int i = 0; i < partCount; i++) {
        String dir = NS + "/" + NAMES[i];
        List<QueueNode> q = QueueNode.queue(w.f.zk.children(dir));
        boolean headIsOurs =
            !q.isEmpty()
                && Ordering.exclusive(q, 0) instanceof Ordering.Hold
                && w.f.zk.stat(dir + "/" + q.get(0).name()).getEphemeralOwner() != OTHER_SESSION;
        if (!headIsOurs) {
          throw new AssertionError(
              "held, but part " + NAMES[i] + " is led by " + q + "; actions " + w.log);
        }
      }
    }
  }
}
