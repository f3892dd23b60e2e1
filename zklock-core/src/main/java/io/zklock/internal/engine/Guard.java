package io.zklock.internal.engine;

import io.zklock.LockLostException;
import io.zklock.internal.zk.SessionPort;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.zookeeper.data.ACL;

/**
 * What a guarded transaction ({@link Transaction}) checks, asked of a handle when the commit is
 * about to be sent: either the grant holds, and these are its lock nodes and the session they
 * belong to; or it does not, and {@code refusal} completes with the reason (at once, or once the
 * engine has found it out: a node seen deleted is classified in one more round trip).
 *
 * @param paths the lock nodes a commit checks first, each by {@code check(path, -1)}
 * @param session the session that owns them: the commit is sent on that session only
 * @param port the session's connection
 * @param executor where the commit's future completes
 * @param acl the ACL of the nodes a transaction creates
 * @param refusal null while the grant holds; else completes with the exception to fail with
 */
public record Guard(
    List<String> paths,
    long session,
    SessionPort port,
    Executor executor,
    List<ACL> acl,
    CompletableFuture<? extends RuntimeException> refusal) {

  /** The grant holds its node {@code path} on {@code session}. */
  static Guard held(String path, long session, RequestContext ctx) {
    return new Guard(List.of(path), session, ctx.session(), ctx.executor(), ctx.acl(), null);
  }

  /** The grant is over: {@code why} is the refusal. */
  public static Guard refused(RuntimeException why) {
    return new Guard(List.of(), 0L, null, null, null, CompletableFuture.completedFuture(why));
  }

  /** The grant is lost; its reason comes with {@code lost}. */
  public static Guard losing(CompletableFuture<LockLostException> lost) {
    return new Guard(List.of(), 0L, null, null, null, lost);
  }

  /** The grant was released by its holder. */
  public static Guard released(String path) {
    return refused(
        new IllegalMonitorStateException(
            "this grant of " + path + " was released by its holder: nothing to guard with"));
  }

  /** Whether the grant holds. */
  public boolean holds() {
    return refusal == null;
  }

  /**
   * The guard of grants that must all hold (the parts of a multi-lock): the first refusal, or every
   * part's nodes. The parts share one session.
   */
  public static Guard all(List<Guard> parts) {
    List<String> paths = new ArrayList<>();
    for (Guard g : parts) {
      if (!g.holds()) {
        return g;
      }
      paths.addAll(g.paths());
    }
    Guard first = parts.get(0);
    return new Guard(
        List.copyOf(paths), first.session(), first.port(), first.executor(), first.acl(), null);
  }
}
