package io.zklock.internal.recipe;

import static io.zklock.internal.engine.EngineFixture.NS;

import io.zklock.LockHandle;
import io.zklock.internal.engine.EngineFixture;
import io.zklock.internal.engine.FakeSession;
import io.zklock.internal.inspect.Inspector;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.QueueNode;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.zk.Lifecycle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;

/**
 * The semaphore's requests across session expiries at any point (queued for admission, admitted and
 * waiting for a lease, holding, releasing), on the engine's fakes: the real code of zklock's
 * clients, and, in the Curator-compatible mode, clients that follow Curator 5.9's {@code
 * InterProcessSemaphoreV2} step by step on the same tree (admitted by the mutex in {@code locks}, a
 * lease created, held while the leases number at most the permits), and in the kazoo-compatible
 * mode clients that follow kazoo 2.8's {@code Semaphore} (admitted by its {@code Lock} at {@code
 * <dir>-__lock__}, a lease {@code <dir>/<32 hex>} created only while fewer than the permits are
 * there). Random interleavings of replies, requests, releases, cancels, time, lost replies, dropped
 * connections and expired sessions of every client. Then:
 *
 * <ul>
 *   <li>a lease of a zklock client is created only while its session holds an admission node: a
 *       request whose session ended comes back through the same door as a new one;
 *   <li>at no moment do more leases hold than there are permits (zklock's held handles and
 *       Curator's clients past their count);
 *   <li>once the faults stop and every holder releases, every request has its answer, every Curator
 *       client its lease, and nothing is left: no semaphore stalls while a permit is free.
 * </ul>
 */
class SemaphoreSessionPropertiesTest {
  private static final String NAME = "orders";
  private static final String DIR = NS + "/" + NAME;
  private static final String ZKLOCK_LEASES = DIR + "/" + Inspector.LEASES;
  private static final int MAX_REQUESTS = 4;

  private enum Action {
    DELIVER(14),
    Z_START(3),
    Z_RELEASE(3),
    Z_CANCEL(1),
    C_ACQUIRE(3),
    C_RETURN(3),
    Z_EXPIRE(2),
    Z_CONNECTION(1),
    C_EXPIRE(1),
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
  void curatorCompatible_withCuratorsClients_sameDoor_atMostThePermits_noStall(
      @ForAll @IntRange(min = 1, max = 2) int permits,
      @ForAll @Size(min = 10, max = 90) List<@IntRange(min = 0, max = 99_999) Integer> actions) {
    new Run(true, permits, 1, 2).play(actions);
  }

  @Property(tries = 300)
  void kazooCompatible_withKazoosClients_sameDoor_atMostThePermits_noStall(
      @ForAll @IntRange(min = 1, max = 2) int permits,
      @ForAll @Size(min = 10, max = 90) List<@IntRange(min = 0, max = 99_999) Integer> actions) {
    new Run(permits, 2, 2).play(actions);
  }

  @Property(tries = 300)
  void plain_twoClients_sameDoor_atMostThePermits_noStall(
      @ForAll @IntRange(min = 1, max = 2) int permits,
      @ForAll @Size(min = 10, max = 90) List<@IntRange(min = 0, max = 99_999) Integer> actions) {
    new Run(false, permits, 2, 0).play(actions);
  }

  /** One zklock client: its fixture (session, requests) and its semaphore. */
  private static final class ZClient {
    final EngineFixture f;
    final SemaphoreImpl sem;
    final List<CompletableFuture<LockHandle>> requests = new ArrayList<>();
    final List<Integer> counts = new ArrayList<>();

    ZClient(EngineFixture f, int permits, boolean curator, boolean kazoo) {
      this.f = f;
      RecipeContext ctx = new RecipeContext(f.ctx, null, new Lifecycle(null, null), NS, null);
      this.sem =
          kazoo
              ? SemaphoreImpl.kazooCompatible(ctx, NAME, permits)
              : new SemaphoreImpl(ctx, NAME, permits, curator);
    }

    boolean live() {
      return f.session.state() == FakeSession.State.CONNECTED
          || f.session.state() == FakeSession.State.SUSPENDED;
    }
  }

  /** Curator's client, one step at a time: as InterProcessSemaphoreV2.acquire() for one lease. */
  private final class CuratorClient {
    final String name;
    long session;
    String lockNode; // its admission node in locks, while it has one
    String leaseNode; // its lease, while it has one
    boolean holds;
    int wanted; // acquisitions asked for
    int done; // acquisitions granted

    CuratorClient(String name, long session) {
      this.name = name;
      this.session = session;
    }

    /** Goes as far as it can without waiting, as its watches would take it. */
    boolean react() {
      if (wanted == done && lockNode == null && leaseNode == null) {
        return false;
      }
      if (holds) {
        return false;
      }
      if (kazoo) {
        return reactAsKazoo();
      }
      if (lockNode == null && leaseNode == null) {
        f().zk.mkdirs(locks);
        lockNode =
            f().zk
                .create(
                    session,
                    locks
                        + "/"
                        + QueueNode.prefix(NodeKind.CURATOR_MUTEX, UUID.randomUUID().toString()),
                    name.getBytes(StandardCharsets.UTF_8),
                    CreateMode.EPHEMERAL_SEQUENTIAL);
        log.add(name + " queues " + last(lockNode));
        return true;
      }
      if (leaseNode == null) {
        List<String> queue = bySequence(run.children(locks));
        if (!queue.isEmpty() && (locks + "/" + queue.get(0)).equals(lockNode)) {
          f().zk.mkdirs(leases);
          leaseNode =
              f().zk
                  .create(
                      session,
                      leases
                          + "/"
                          + QueueNode.prefix(NodeKind.CURATOR_LEASE, UUID.randomUUID().toString()),
                      name.getBytes(StandardCharsets.UTF_8),
                      CreateMode.EPHEMERAL_SEQUENTIAL);
          log.add(name + " admitted, lease " + last(leaseNode));
          return true;
        }
        return false;
      }
      if (f().zk.children(leases).size() <= permits) {
        holds = true;
        done++;
        f().zk.delete(lockNode);
        lockNode = null;
        log.add(name + " holds");
        return true;
      }
      return false;
    }

    /**
     * As kazoo 2.8's {@code Semaphore.acquire()}: its {@code Lock} at {@code <dir>-__lock__}, then,
     * at the head, a lease {@code <dir>/<32 hex>} if fewer than the permits are there (else it
     * waits for a child to go), then the lock released.
     */
    private boolean reactAsKazoo() {
      if (lockNode == null) {
        f().zk.mkdirs(locks);
        lockNode =
            f().zk
                .create(
                    session,
                    locks + "/" + String.format("%032x", ++kazooIds) + "__lock__",
                    name.getBytes(StandardCharsets.UTF_8),
                    CreateMode.EPHEMERAL_SEQUENTIAL);
        log.add(name + " queues " + last(lockNode));
        return true;
      }
      List<String> queue = bySequence(run.children(locks));
      if (queue.isEmpty() || !(locks + "/" + queue.get(0)).equals(lockNode)) {
        return false;
      }
      if (run.children(DIR).size() >= permits) {
        return false; // its child watch wakes it (here: the next react)
      }
      leaseNode =
          f().zk
              .create(
                  session,
                  DIR + "/" + String.format("%032x", ++kazooIds),
                  name.getBytes(StandardCharsets.UTF_8),
                  CreateMode.EPHEMERAL);
      holds = true;
      done++;
      f().zk.delete(lockNode);
      lockNode = null;
      log.add(name + " admitted, leases " + last(leaseNode) + ", holds");
      return true;
    }

    void returnLease() {
      f().zk.delete(leaseNode);
      leaseNode = null;
      holds = false;
      log.add(name + " returns");
    }

    /**
     * Its session expires: its nodes go. A holder lost its lease; a client still acquiring asks
     * again on its new session (Curator's acquire fails, and its caller calls it again).
     */
    void expire(long next) {
      f().zk.expire(session);
      session = next;
      lockNode = null;
      leaseNode = null;
      holds = false;
    }
  }

  private static String last(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /** Curator's order of a mutex's nodes: by the sequence after the lock name. */
  private static List<String> bySequence(List<String> children) {
    List<String> out = new ArrayList<>(children);
    out.sort(Comparator.comparing(n -> n.substring(n.length() - 10)));
    return out;
  }

  private final List<String> log = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  private Run run;
  private String locks;
  private String leases; // where the leases are: <dir>/leases, or kazoo's <dir> itself
  private boolean kazoo; // the other library's clients are kazoo's Semaphore's, not Curator's
  private int kazooIds;
  private int permits;

  private EngineFixture f() {
    return run.zs.get(0).f;
  }

  private final class Run {
    final List<ZClient> zs = new ArrayList<>();
    final List<CuratorClient> cs = new ArrayList<>();
    final Set<Long> zklockSessions = new HashSet<>();
    long nextSession = 0x5000;

    Run(boolean curator, int permits, int zklockClients, int curatorClients) {
      this(curator, false, permits, zklockClients, curatorClients);
    }

    /** The kazoo-compatible semaphore beside kazoo's clients. */
    Run(int permits, int zklockClients, int kazooClients) {
      this(false, true, permits, zklockClients, kazooClients);
    }

    private Run(
        boolean curator, boolean kazoo, int permits, int zklockClients, int curatorClients) {
      run = this;
      SemaphoreSessionPropertiesTest.this.permits = permits;
      SemaphoreSessionPropertiesTest.this.kazoo = kazoo;
      locks =
          kazoo
              ? DIR + "-__lock__"
              : DIR + "/" + (curator ? NodeKind.CURATOR_SEMAPHORE_LOCKS : Inspector.QUEUE);
      leases = kazoo ? DIR : ZKLOCK_LEASES;
      EngineFixture first = new EngineFixture();
      zs.add(new ZClient(first, permits, curator, kazoo));
      for (int i = 1; i < zklockClients; i++) {
        zs.add(new ZClient(first.otherClient(nextSession++), permits, curator, kazoo));
      }
      for (int i = 0; i < curatorClients; i++) {
        cs.add(new CuratorClient("c" + i, nextSession++));
      }
      zs.forEach(z -> zklockSessions.add(z.f.session.sessionId()));
      first.zk.mkdirs(DIR);
      first.zk.onCreate(this::created);
    }

    /** A node was created: a zklock lease only while its session holds an admission node. */
    void created(long owner, String path) {
      if (!path.startsWith(leases + "/") || !zklockSessions.contains(owner)) {
        return;
      }
      for (String n : children(locks)) {
        Stat st = f().zk.stat(locks + "/" + n);
        if (st != null && st.getEphemeralOwner() == owner) {
          return;
        }
      }
      violations.add(
          "lease "
              + last(path)
              + " created on session 0x"
              + Long.toHexString(owner)
              + " without an admission node of it in "
              + children(locks));
    }

    void play(List<Integer> actions) {
      for (int a : actions) {
        act(TABLE[a % TABLE.length], a / TABLE.length);
        react();
        check();
      }
      finish();
    }

    private void react() {
      boolean moved = true;
      while (moved) {
        moved = false;
        for (CuratorClient c : cs) {
          moved |= c.react();
        }
      }
    }

    void act(Action action, int arg) {
      ZClient z = zs.get(arg % zs.size());
      int n = arg / zs.size();
      switch (action) {
        case DELIVER -> {
          for (int i = n % 3; i >= 0; i--) {
            step("deliver", f().zk::deliverNext);
          }
        }
        case Z_START -> {
          if (z.requests.size() < MAX_REQUESTS) {
            int count = 1 + n % permits;
            Waiting w =
                n % 4 == 0
                    ? Waiting.after(Duration.ofMillis(100L * (1 + n % 7)).toNanos(), z.f.clock)
                    : Waiting.FOREVER;
            step(
                "z" + zs.indexOf(z) + " start#" + z.requests.size() + " x" + count,
                () -> {
                  z.counts.add(count);
                  z.requests.add(z.sem.request(count, w));
                });
          }
        }
        case Z_RELEASE -> {
          List<LockHandle> held = held(z);
          if (!held.isEmpty()) {
            step("z" + zs.indexOf(z) + " release", held.get(n % held.size())::releaseAsync);
          }
        }
        case Z_CANCEL -> {
          if (!z.requests.isEmpty()) {
            int i = n % z.requests.size();
            step("z" + zs.indexOf(z) + " cancel#" + i, () -> z.requests.get(i).cancel(true));
          }
        }
        case C_ACQUIRE -> {
          if (!cs.isEmpty()) {
            CuratorClient c = cs.get(n % cs.size());
            if (c.wanted - c.done < 1 && !c.holds) {
              step(c.name + " acquire", () -> c.wanted++);
            }
          }
        }
        case C_RETURN -> {
          if (!cs.isEmpty()) {
            CuratorClient c = cs.get(n % cs.size());
            if (c.holds) {
              step(c.name + " return", c::returnLease);
            }
          }
        }
        case Z_EXPIRE -> {
          if (z.live()) {
            step("z" + zs.indexOf(z) + " expire", z.f.session::expire);
          }
        }
        case Z_CONNECTION -> {
          switch (z.f.session.state()) {
            case CONNECTED -> step("z" + zs.indexOf(z) + " disconnect", z.f.session::disconnect);
            case SUSPENDED -> step("z" + zs.indexOf(z) + " reconnect", z.f.session::reconnect);
            case LOST -> newSession(z);
            default -> {}
          }
        }
        case C_EXPIRE -> {
          if (!cs.isEmpty()) {
            CuratorClient c = cs.get(n % cs.size());
            step(c.name + " expire", () -> c.expire(nextSession++));
          }
        }
        case ADVANCE ->
            step("advance", () -> f().scheduler.advance(Duration.ofMillis(50 + 50L * (n % 6))));
        case LOSE_NEXT_REPLY -> step("loseNextReply", f().zk::loseNextReply);
      }
    }

    private void newSession(ZClient z) {
      long s = nextSession++;
      zklockSessions.add(s);
      step("z" + zs.indexOf(z) + " newSession", () -> z.f.session.newSession(s));
    }

    private void step(String what, Runnable r) {
      log.add(what);
      r.run();
    }

    private List<LockHandle> held(ZClient z) {
      List<LockHandle> out = new ArrayList<>();
      for (CompletableFuture<LockHandle> r : z.requests) {
        if (r.isDone() && !r.isCompletedExceptionally() && !r.isCancelled()) {
          LockHandle h = r.join();
          if (h != null && h.isHeld()) {
            out.add(h);
          }
        }
      }
      return out;
    }

    void check() {
      if (!violations.isEmpty()) {
        fail(violations.get(0));
      }
      int holding = 0;
      for (ZClient z : zs) {
        for (int i = 0; i < z.requests.size(); i++) {
          CompletableFuture<LockHandle> r = z.requests.get(i);
          if (r.isDone() && !r.isCompletedExceptionally() && !r.isCancelled()) {
            LockHandle h = r.join();
            if (h != null && h.isHeld()) {
              holding += z.counts.get(i);
            }
          }
        }
      }
      for (CuratorClient c : cs) {
        holding += c.holds ? 1 : 0;
      }
      if (holding > permits) {
        fail(holding + " leases held at once, of " + permits + " permits");
      }
    }

    /** The faults stop; sessions come back; every holder releases; until quiet. */
    void finish() {
      log.add("| finish");
      for (int round = 0; round < 30; round++) {
        for (ZClient z : zs) {
          switch (z.f.session.state()) {
            case SUSPENDED -> z.f.session.reconnect();
            case LOST -> newSession(z);
            default -> {}
          }
        }
        f().zk.deliverAll();
        react();
        check();
        for (ZClient z : zs) {
          held(z).forEach(LockHandle::releaseAsync);
        }
        for (CuratorClient c : cs) {
          if (c.holds) {
            c.returnLease();
          }
        }
        f().zk.deliverAll();
        react();
        f().scheduler.advance(Duration.ofSeconds(1));
        f().zk.deliverAll();
        react();
      }
      for (ZClient z : zs) {
        for (int i = 0; i < z.requests.size(); i++) {
          if (!z.requests.get(i).isDone()) {
            fail(
                "z"
                    + zs.indexOf(z)
                    + "'s request #"
                    + i
                    + " never answered; locks "
                    + f().zk.children(locks)
                    + ", leases "
                    + children(leases));
          }
        }
      }
      for (CuratorClient c : cs) {
        if (c.done < c.wanted) {
          fail(
              c.name
                  + " never got its lease; locks "
                  + children(locks)
                  + ", leases "
                  + children(leases));
        }
      }
      if (!children(locks).isEmpty() || !children(leases).isEmpty()) {
        fail("left behind: locks " + children(locks) + ", leases " + children(leases));
      }
    }

    private List<String> children(String dir) {
      return f().zk.exists(dir) ? f().zk.children(dir) : List.of();
    }

    private void fail(String why) {
      throw new AssertionError(why + "; actions " + log);
    }
  }
}
