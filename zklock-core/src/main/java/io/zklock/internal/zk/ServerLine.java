package io.zklock.internal.zk;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one instance knows of its servers' line: whether they answer a read-only {@code multi}
 * (ZooKeeper 3.6+), which lets the {@link Batcher} send several listings in one request. A 3.5
 * server does not know that request: it answers {@code UNIMPLEMENTED} and closes the connection
 * (the session lives on). So read-only multis are sent only once a probe has been answered ({@link
 * #probe}, at build or at the first connection, before any lock request is sent); until then, and
 * for good once a server has refused one, listings go one by one.
 *
 * <p>An ensemble in a rolling change may mix lines: a read-only multi refused later ({@code
 * UNIMPLEMENTED}, or lost to connection losses {@link #LOSSES_TO_GIVE_UP} times in a row with none
 * answered between) turns read batching off for the rest of the instance's life.
 */
public final class ServerLine {
  private static final Logger log = LoggerFactory.getLogger(ServerLine.class);

  /** Read-only multis lost in a row (none answered between) after which they are not sent again. */
  static final int LOSSES_TO_GIVE_UP = 2;

  /** Whether the servers answer a read-only multi. */
  enum ReadMulti {
    /** Not known yet: listings are not batched. */
    UNKNOWN,
    /** A server answered one: listings may be batched. */
    YES,
    /** A server refused one (or its connection was lost in reply): never sent again. */
    NO
  }

  private volatile ReadMulti readMulti;
  private int lostInARow; // guarded by this

  public ServerLine() {
    this(ReadMulti.UNKNOWN);
  }

  ServerLine(ReadMulti known) {
    this.readMulti = known;
  }

  /** A line known to answer read-only multis (the engine's fakes). */
  public static ServerLine readMultiAnswered() {
    return new ServerLine(ReadMulti.YES);
  }

  /** Whether listings may go out together in a read-only multi. */
  public boolean readMulti() {
    return readMulti == ReadMulti.YES;
  }

  ReadMulti state() {
    return readMulti;
  }

  /** A read-only multi was answered. */
  synchronized void answered() {
    lostInARow = 0;
  }

  /** A read-only multi met a connection loss. */
  synchronized void lost() {
    if (++lostInARow >= LOSSES_TO_GIVE_UP && readMulti == ReadMulti.YES) {
      readMulti = ReadMulti.NO;
      log.info(
          "{} read-only multis in a row were lost to a connection loss (a ZooKeeper server before"
              + " 3.6 closes the connection on one): listings are sent one by one from now on",
          lostInARow);
    }
  }

  /** A server answered a read-only multi {@code UNIMPLEMENTED}: a server before 3.6. */
  void refused() {
    if (readMulti != ReadMulti.NO) {
      readMulti = ReadMulti.NO;
      log.info(
          "a ZooKeeper server does not know read-only multi (a server before 3.6): listings are"
              + " sent one by one from now on");
    }
  }

  /**
   * Asks the server behind {@code ops} a read-only multi (one {@code getData} of the root) and
   * waits for the answer, at most {@code timeoutMillis}: any answer with results is a 3.6+ server;
   * {@code UNIMPLEMENTED} or a connection loss, a server that does not know it (which then closes
   * the connection: the caller waits for the client to connect again, see {@link
   * #refusedByClosing()}).
   *
   * @return whether the server refused it by closing the connection
   */
  boolean probe(ZkOps ops, long timeoutMillis) throws InterruptedException {
    if (readMulti != ReadMulti.UNKNOWN) {
      return false;
    }
    CompletableFuture<Integer> answer = new CompletableFuture<>();
    try {
      ops.multi(
          List.of(Op.getData("/")),
          (rc, path, ctx, results) -> answer.complete(results != null ? Code.OK.intValue() : rc));
    } catch (RuntimeException e) {
      log.debug("cannot probe the server's line; listings are sent one by one", e);
      return false;
    }
    int rc;
    try {
      rc = Blocking.get(answer, timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      return false; // not known: listings one by one
    }
    Code code = Code.get(rc);
    if (code == Code.OK) {
      readMulti = ReadMulti.YES;
      return false;
    }
    if (code == Code.UNIMPLEMENTED || code == Code.CONNECTIONLOSS) {
      readMulti = ReadMulti.NO;
      log.info(
          "the ZooKeeper server does not know read-only multi (a server before 3.6; it closes the"
              + " connection once, and the client connects again): listings are sent one by one");
      return true;
    }
    return false; // expired, refused for another reason: not known
  }
}
