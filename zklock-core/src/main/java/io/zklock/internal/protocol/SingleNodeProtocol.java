package io.zklock.internal.protocol;

import io.zklock.internal.rules.ErrorKind;
import io.zklock.internal.rules.ForeignNode;
import io.zklock.internal.rules.Json;
import io.zklock.internal.rules.KindMix;
import io.zklock.internal.rules.Listing;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.QueueNode;
import io.zklock.internal.zk.Sync;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.data.Stat;

/**
 * The simple lock's one {@code EPHEMERAL} node: whoever creates it holds the lock; the others watch
 * it and all try again when it goes (not fair, and a herd).
 *
 * <p>Identity: the node's data carries the request's attempt id (and the session), so after a
 * connection loss on create the request reads the node back: its own id means the create happened
 * (adopt it), another id means someone else holds the lock: the node is read, never assumed.
 */
public final class SingleNodeProtocol implements NodeProtocol {
  /** The name of the lock node inside the directory. */
  static final String NODE = NodeKind.SIMPLE_NODE;

  private final String dir;
  private final String path;

  public SingleNodeProtocol(String dir) {
    this.dir = dir;
    this.path = dir + "/" + NODE;
  }

  @Override
  public String dir() {
    return dir;
  }

  @Override
  public NodeKind kind() {
    return NodeKind.SIMPLE;
  }

  @Override
  public void create(Step step) {
    boolean[] made = new boolean[1]; // the create's reply comes first: one session, in order
    step.zk()
        .create(
            path,
            step.nodeData(NodeKind.SIMPLE, Map.of("attempt", step.attemptId())),
            step.ctx().acl(),
            CreateMode.EPHEMERAL,
            (rc, p, c, name, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.OK) {
                step.created(path, stat.getCzxid());
                made[0] = true; // granted on the listing's reply, right behind this one
              } else if (code == Code.NODEEXISTS) {
                busy(step);
              } else {
                step.createFailed(code);
              }
            });
    // pipelined behind the create, no round trip of its own: the directory's other children
    step.zk()
        .getChildren(
            dir,
            null,
            (rc, p, c, children, stat) -> {
              if (made[0]) {
                listed(step, rc, children);
              }
            });
  }

  /**
   * We made the node: grant unless the directory holds another library's lock node ({@link
   * ForeignNode}), whose client does not see {@code x-lock} and may hold too.
   */
  private void listed(Step step, int rc, java.util.List<String> children) {
    Code code = Code.get(rc);
    if (code != Code.OK) {
      if (ErrorKind.retryWhenConnected(code)) {
        step.whenConnected(this::listThenGrant);
      }
      return; // expiry: the session's news deal with it
    }
    Listing listing = Listing.of(children);
    QueueNode other = KindMix.conflict(NodeKind.SIMPLE, listing);
    if (other != null) {
      // a kazoo or Curator client's node (or a compatible mode's): its client does not see x-lock
      if (step.isLive()) {
        step.fail(
            new RecipeMixException(
                KindMix.refusal(dir, NodeKind.SIMPLE, other), dir, step.session()));
      }
      return;
    }
    java.util.List<ForeignNode> foreign = listing.foreign();
    if (foreign.isEmpty()) {
      step.granted();
      return;
    }
    ForeignNode certain = ForeignNode.firstCertain(foreign);
    if (certain != null) {
      refuse(step, certain);
      return;
    }
    ForeignReads.read(step.zk(), dir, foreign, step.ctx().listings().notLockNodes(dir))
        .thenAccept(
            found -> {
              if (found == null) {
                step.whenConnected(this::listThenGrant);
              } else if (found.isEmpty()) {
                step.granted();
              } else {
                refuse(step, found.get(0));
              }
            });
  }

  /** We hold the node (made, or adopted): list the directory, then grant or refuse. */
  private void listThenGrant(Step step) {
    step.zk().getChildren(dir, null, (rc, p, c, children, stat) -> listed(step, rc, children));
  }

  private void refuse(Step step, ForeignNode found) {
    if (step.isLive()) {
      step.fail(
          new RecipeMixException(
              ForeignNode.refusal(dir, NodeKind.SIMPLE, found), dir, step.session()));
    }
  }

  /** Someone else holds the node: watch it, or give up. */
  private void busy(Step step) {
    if (!step.mayWait()) {
      step.busy();
      return;
    }
    step.queued(1); // behind the holder; the simple lock keeps no queue
    Step waiting =
        step.watch(
            path,
            WatcherType.Data,
            (s, event) -> {
              if (event.getType() != EventType.None) {
                s.again(); // deleted, or changed hands: create again (and watch again if needed)
              }
            });
    if (waiting == null) {
      return;
    }
    // getData, not exists: on a node already gone it sets no watch that could leak
    waiting
        .zk()
        .getData(
            path,
            waiting.watcher(),
            (rc, p, c, data, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.NONODE) {
                waiting.again();
              } else if (ErrorKind.retryWhenConnected(code)) {
                waiting.whenConnected(Step::again);
              }
            });
  }

  @Override
  public void judge(Step step) {
    step.again(); // nothing to list: try the create again, which watches again if needed
  }

  @Override
  public void recover(Step step) {
    Sync.sync(step.conn(), path); // the server we reconnected to may not have applied our create
    step.zk()
        .getData(
            path,
            null,
            (rc, p, c, data, stat) -> {
              Code code = Code.get(rc);
              if (ErrorKind.retryWhenConnected(code)) {
                step.whenConnected(this::recover);
              } else if (code == Code.NONODE) {
                step.again(); // the create never happened, or the node went since
              } else if (code == Code.OK && isOurs(data, stat, step.session(), step.attemptId())) {
                step.adopted(path, stat.getCzxid(), false);
                listThenGrant(step);
              } else if (code == Code.OK) {
                busy(step); // someone else's
              }
              // expiry: the session's news queue us again
            });
  }

  private static boolean isOurs(byte[] data, Stat stat, long session, String attemptId) {
    if (data == null || stat == null || stat.getEphemeralOwner() != session) {
      return false;
    }
    return attemptId.equals(Json.field(new String(data, StandardCharsets.UTF_8), "attempt"));
  }

  @Override
  public CompletableFuture<Void> deleteUnknown(
      ProtocolContext ctx, String attemptId, long session) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    deleteIfOurs(ctx, attemptId, session, done);
    return done;
  }

  /** Reads the node back (after a sync) and deletes it if request {@code attemptId} made it. */
  private void deleteIfOurs(
      ProtocolContext ctx, String attemptId, long session, CompletableFuture<Void> done) {
    ctx.session()
        .whenConnected(
            conn -> {
              if (conn.sessionId() != session) {
                done.complete(null); // the session ended, and its node with it
                return;
              }
              Sync.sync(conn, path);
              conn.ops()
                  .getData(
                      path,
                      null,
                      (rc, p, c, data, stat) -> {
                        Code code = Code.get(rc);
                        if (code == Code.OK && isOurs(data, stat, session, attemptId)) {
                          ctx.deleter()
                              .deleteCreated(path, session, null, stat.getCzxid())
                              .whenComplete((v, t) -> done.complete(null));
                        } else if (ErrorKind.retryWhenConnected(code)) {
                          deleteIfOurs(ctx, attemptId, session, done);
                        } else {
                          done.complete(null);
                        }
                      });
            },
            () -> done.complete(null));
  }
}
