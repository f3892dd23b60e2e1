package io.zklock.internal.protocol;

import io.zklock.internal.rules.ErrorKind;
import io.zklock.internal.rules.KazooSemaphore;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.zk.Sync;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.data.Stat;

/**
 * A lease of the kazoo-compatible semaphore, made as Python kazoo's {@code Semaphore} makes one:
 * list the semaphore's children, create an EPHEMERAL {@code <dir>/<32 hex>} if fewer than the
 * permits are there ({@link KazooSemaphore#lease}), else wait for a child watch and list again. Its
 * request runs only while the semaphore's admission (a kazoo {@code Lock} at {@code
 * <dir>-__lock__}) is held on the same session ({@link
 * io.zklock.internal.engine.LockRequest#boundTo}), so that, as among kazoo's clients, one client at
 * a time counts and creates.
 *
 * <p>The node's name is the request's attempt id (a UUID's 32 hex digits, {@link
 * io.zklock.internal.rules.RandomIds#attemptId(NodeKind)}): after a lost reply, the request finds
 * its node again by that name and its session.
 */
public final class KazooLeaseProtocol implements NodeProtocol {
  private final String dir;
  private final int permits;
  private final Map<String, String> extraData;

  /**
   * @param dir the semaphore's directory (kazoo's semaphore path)
   * @param permits the semaphore's count (kazoo's {@code max_leases})
   * @param extraData extra fields of the lease's data
   */
  public KazooLeaseProtocol(String dir, int permits, Map<String, String> extraData) {
    this.dir = dir;
    this.permits = permits;
    this.extraData = extraData;
  }

  @Override
  public String dir() {
    return dir;
  }

  @Override
  public NodeKind kind() {
    return NodeKind.KAZOO_LEASE;
  }

  private String pathOf(Step step) {
    return dir + "/" + step.attemptId();
  }

  /** Lists the leases, then creates ours or waits (kazoo's {@code _get_lease}). */
  @Override
  public void create(Step step) {
    step.zk()
        .getChildren(
            dir,
            null,
            (rc, p, c, children, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.OK) {
                decide(step, children, false);
              } else if (code == Code.NONODE) {
                step.createFailed(code); // the directory went since it was checked: made again
              } else if (ErrorKind.retryWhenConnected(code)) {
                step.whenConnected(this::create);
              }
              // expiry: the session's news deal with it
            });
  }

  private void decide(Step step, List<String> children, boolean watched) {
    KazooSemaphore.Decision d = KazooSemaphore.lease(children, permits);
    if (d instanceof KazooSemaphore.Refuse r) {
      if (step.isLive()) {
        step.fail(
            new RecipeMixException(
                KazooSemaphore.childRefusal(dir, r.child()), dir, step.session()));
      }
    } else if (d instanceof KazooSemaphore.Create) {
      if (!step.isLive()) {
        // withdrawn (a timeout, a cancel) while the listing was in flight: its admission may be
        // given back already, and a lease is created only while admitted (a create racing a
        // withdrawal that has just begun is deleted by the engine when its reply comes)
        return;
      }
      if (watched) {
        step.again(); // a permit is free now: create anew (listing once more, unwatched)
      } else {
        createLease(step);
      }
    } else if (!watched) {
      waitForLeases(step, ((KazooSemaphore.Full) d).held());
    }
    // watched and still full: the watch set by that listing stands
  }

  private void createLease(Step step) {
    String path = pathOf(step);
    step.zk()
        .create(
            path,
            step.nodeData(NodeKind.KAZOO_LEASE, extraData),
            step.ctx().acl(),
            CreateMode.EPHEMERAL,
            (rc, p, c, name, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.OK) {
                step.created(path, stat.getCzxid());
                step.granted();
              } else {
                step.createFailed(code); // NONODE makes the directory again; the rest as any create
              }
            });
  }

  /** Every permit is held: watch the leases (kazoo's admitted client alone does) and list again. */
  private void waitForLeases(Step step, int held) {
    if (!step.mayWait()) {
      step.busy();
      return;
    }
    step.queued(1); // admitted: next in line for the first permit freed
    Step waiting =
        step.watch(
            dir,
            WatcherType.Children,
            (s, event) -> {
              if (event.getType() != EventType.None) {
                s.again(); // a lease went (or came): list again, and create if one is free
              }
            });
    if (waiting == null) {
      return;
    }
    waiting
        .zk()
        .getChildren(
            dir,
            waiting.watcher(),
            (rc, p, c, children, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.OK) {
                decide(waiting, children, true);
              } else if (code == Code.NONODE) {
                waiting.again();
              } else if (ErrorKind.retryWhenConnected(code)) {
                waiting.whenConnected(Step::again);
              }
            });
  }

  @Override
  public void judge(Step step) {
    step.again();
  }

  @Override
  public void recover(Step step) {
    String path = pathOf(step);
    Sync.sync(step.conn(), path); // the server we reconnected to may not have applied our create
    step.zk()
        .exists(
            path,
            null,
            (rc, p, c, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.OK && stat.getEphemeralOwner() == step.session()) {
                step.adopted(path, stat.getCzxid(), false);
                step.granted();
              } else if (code == Code.OK || code == Code.NONODE) {
                step.again(); // the create never happened (a name of 32 random hex digits)
              } else if (ErrorKind.retryWhenConnected(code)) {
                step.whenConnected(this::recover);
              }
              // expiry: the session's news deal with it
            });
  }

  @Override
  public CompletableFuture<Void> deleteUnknown(
      ProtocolContext ctx, String attemptId, long session) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    deleteIfOurs(ctx, dir + "/" + attemptId, session, done);
    return done;
  }

  private static void deleteIfOurs(
      ProtocolContext ctx, String path, long session, CompletableFuture<Void> done) {
    ctx.session()
        .whenConnected(
            conn -> {
              if (conn.sessionId() != session) {
                done.complete(null); // the session ended, and its node with it
                return;
              }
              Sync.sync(conn, path);
              conn.ops()
                  .exists(
                      path,
                      null,
                      (rc, p, c, stat) -> {
                        Code code = Code.get(rc);
                        if (code == Code.OK && isOurs(stat, session)) {
                          ctx.deleter()
                              .deleteCreated(path, session, null, stat.getCzxid())
                              .whenComplete((v, t) -> done.complete(null));
                        } else if (ErrorKind.retryWhenConnected(code)) {
                          deleteIfOurs(ctx, path, session, done);
                        } else {
                          done.complete(null);
                        }
                      });
            },
            () -> done.complete(null));
  }

  private static boolean isOurs(Stat stat, long session) {
    return stat != null && stat.getEphemeralOwner() == session;
  }
}
