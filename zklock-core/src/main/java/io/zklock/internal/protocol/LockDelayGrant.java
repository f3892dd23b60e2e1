package io.zklock.internal.protocol;

import io.zklock.internal.rules.ErrorKind;
import io.zklock.internal.rules.LockDelay;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.QueueNode;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock-delay's grant ({@link io.zklock.LockOptions#lockDelay}): after a grant that ended by
 * failure, the next one waits out the delay; after a clean release, it is made at once. Everything
 * of the delay is here, beside the queue it hooks into ({@link GrantPolicy}): the lock directory's
 * record that tells the two apart and the ops that write it, the reads of the record, the delayed
 * grant and the mark that shows it. What is decided from what ZooKeeper records is the pure {@link
 * LockDelay}.
 *
 * <ul>
 *   <li>A newcomer reads the record right before its create, in the same round trip; if it stands
 *       first in its first listing, that read (with the listing's {@code cversion}) decides.
 *   <li>A waiter on the head of the queue watches the record, read before the head is (so a release
 *       in between is seen by one or the other): a release's change of the record is delivered
 *       before the head's deletion, so the deletion decides with no read after it.
 *   <li>Any other request that stands first reads the record once, then decides.
 *   <li>A delayed grant is made on one read of our node after the delay: a timer alone proves
 *       neither that our session lived nor that our node stood.
 * </ul>
 */
final class LockDelayGrant implements GrantPolicy {
  private static final Logger log = LoggerFactory.getLogger(LockDelayGrant.class);

  /** The field of a node waiting out a lock-delay: until when, epoch ms (see LockNode). */
  static final String LOCK_DELAY_UNTIL = "lockDelayUntil";

  private final String dir;
  private final NodeKind kind;
  private final Map<String, String> extraData;
  private final long delayMillis;
  private final Consumer<Step> judge;

  /**
   * Our nodes that stand first and wait out the delay, with the server time their record keeps if
   * they withdraw (-1: the record's own time).
   */
  private final ConcurrentHashMap<String, Long> delaying = new ConcurrentHashMap<>();

  /**
   * What a step knew before it decided on a listing where it may stand first: the record read
   * before its create (a newcomer's step), or the predecessor whose deletion sent it to list. By
   * the step's identity; a step the request has left is collected with its entry.
   */
  private final Map<Step, Before> before = Collections.synchronizedMap(new WeakHashMap<>());

  /**
   * @param judge the queue's {@link NodeProtocol#judge}: decides again where a step stands
   */
  LockDelayGrant(
      String dir,
      NodeKind kind,
      Map<String, String> extraData,
      long delayNanos,
      Consumer<Step> judge) {
    this.dir = dir;
    this.kind = kind;
    this.extraData = extraData;
    this.delayMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(delayNanos));
    this.judge = judge;
  }

  // ---------------------------------------------------------------- what the queue tells

  @Override
  public void creating(Step step) {
    // the directory's record as it was before our create, in the same round trip
    Before b = new Before(null);
    before.put(step, b);
    step.zk().getData(dir, null, (rc, p, c, data, stat) -> b.read(rc, data, stat));
  }

  @Override
  public void created(Step step, Stat node) {
    Before b = before.get(step);
    if (b != null) {
      b.ctime = node.getCtime();
    }
  }

  /** The first listing's {@code cversion} tells whether a delay's record is older than our node. */
  @Override
  public boolean readsDirStat() {
    return true;
  }

  @Override
  public void listed(Step step, Stat dirStat) {
    Before b = before.get(step);
    if (b != null && b.predecessor == null && dirStat != null) {
      b.postCversion = dirStat.getCversion();
    }
  }

  @Override
  public void afterPredecessor(Step step, String predecessor) {
    before.put(step, new Before(predecessor));
  }

  /** We stand first in a listing: decide on the record whether the grant waits out a delay. */
  @Override
  public void holds(Step step, QueueNode me) {
    Before b = before.remove(step);
    if (b != null && b.predecessor == null) {
      // a newcomer: the read sent right before our create answered before this listing did
      long wait = delayMillis;
      long keep = -1L;
      Code code = Code.get(b.rc);
      Stat st = b.stat;
      if (b.answered && code == Code.OK && st != null) {
        wait =
            LockDelay.byStat(
                true,
                st.getPzxid(),
                st.getMzxid(),
                st.getNumChildren(),
                st.getCversion(),
                b.data,
                st.getMtime(),
                b.postCversion,
                b.ctime,
                delayMillis);
        keep = kept(b.data, st);
      } else if (b.answered && code == Code.NONODE) {
        wait = LockDelay.byStat(false, 0, 0, 0, 0, null, 0, b.postCversion, 0, delayMillis);
      }
      delayThenGrant(step, wait, keep);
      return;
    }
    // a request that waited: one read of the record, now (only when the grant did not come from
    // the watched deletion)
    String predecessor = b == null ? null : b.predecessor;
    step.zk()
        .getData(
            dir,
            null,
            (rc, p, c, data, stat) -> {
              Code code = Code.get(rc);
              if (ErrorKind.retryWhenConnected(code)) {
                step.whenConnected(judge::accept);
                return;
              }
              long wait = delayMillis;
              long keep = -1L;
              if (code == Code.OK && stat != null) {
                if (predecessor != null && predecessor.equals(LockDelay.releasedNode(data))) {
                  wait = 0; // our immediate predecessor was released: nobody else held since
                } else {
                  wait =
                      LockDelay.byStat(
                          true,
                          stat.getPzxid(),
                          stat.getMzxid(),
                          LockDelay.AFTER_CREATE,
                          LockDelay.AFTER_CREATE,
                          data,
                          stat.getMtime(),
                          LockDelay.AFTER_CREATE,
                          0L,
                          delayMillis);
                  keep = kept(data, stat);
                }
              }
              delayThenGrant(step, wait, keep);
            });
  }

  /**
   * Watches the directory's record for the wait on the head of the queue, read before the head is
   * (so a release that happens in between is seen by one or the other): see {@link LockDelay}.
   */
  @Override
  public Object waitsOnHead(Step waiting, String head) {
    RecordWatch record = new RecordWatch();
    Watcher watcher =
        waiting.alsoWatch(
            dir,
            WatcherType.Data,
            event -> {
              if (event.getType() == EventType.NodeDataChanged) {
                record.changed = true;
              }
            });
    if (watcher == null) {
      return null;
    }
    waiting
        .zk()
        .getData(
            dir,
            watcher,
            (rc, p, c, data, stat) -> {
              if (Code.get(rc) == Code.OK) {
                record.releasedRead = LockDelay.releasedNode(data);
              }
              record.read = true;
              String decide = record.decideOnRead;
              if (decide != null) {
                record.decideOnRead = null;
                headGone(waiting, decide, record);
              }
            });
    return record;
  }

  /** The head we waited for, of another session, is gone: our grant, now or after the delay. */
  @Override
  public void headGone(Step step, String head, Object note) {
    RecordWatch record = (RecordWatch) note;
    if (record != null && !record.read) {
      record.decideOnRead = head; // the record's read is on its way, sent before this deletion's
      return;
    }
    boolean clean =
        record != null && LockDelay.cleanByWatch(head, record.releasedRead, record.changed);
    delayThenGrant(step, clean ? 0 : delayMillis, -1L);
  }

  @Override
  public void headDeletedHere(Step step, boolean released) {
    if (released) {
      step.granted();
    } else {
      delayThenGrant(step, delayMillis, -1L);
    }
  }

  // ---------------------------------------------------------------- the record's writes

  @Override
  public List<Op> releaseOps(String path) {
    delaying.remove(path);
    String name = path.substring(path.lastIndexOf('/') + 1);
    return List.of(Op.setData(dir, LockDelay.released(name), -1));
  }

  @Override
  public List<Op> withdrawOps(String path) {
    Long kept = delaying.remove(path);
    if (kept == null) {
      return null; // not first: a plain delete, which leaves the next one unproven (it delays)
    }
    // our own data first: a waiter watching our node lists again rather than take the
    // directory's change that follows for a clean release
    byte[] record = LockDelay.failed(kept);
    return List.of(Op.setData(path, record, -1), Op.setData(dir, record, -1));
  }

  // ---------------------------------------------------------------- the delayed grant

  /**
   * Grants after {@code waitMillis} (at once if 0): the request stays waiting meanwhile, so a
   * timeout, an interruption or a cancel withdraws it as any waiter; a {@code tryAcquire()} is
   * busy. A withdrawal from here writes the failure record ({@link #withdrawOps}).
   */
  private void delayThenGrant(Step step, long waitMillis, long keep) {
    if (waitMillis <= 0) {
      step.granted();
      return;
    }
    Node node = step.node();
    if (node == null || !step.isLive()) {
      return;
    }
    String path = node.path();
    delaying.put(path, keep);
    if (!step.mayWait()) {
      step.busy();
      return;
    }
    log.info(
        "lock {}: the last grant ended by failure (or cannot be proven released); {} waits out"
            + " the lock-delay, {} ms",
        dir,
        node.path(),
        waitMillis);
    markDelay(step, path, waitMillis);
    step.ctx()
        .scheduler()
        .schedule(
            () -> {
              if (!step.isLive()) {
                delaying.remove(path, keep);
                return;
              }
              step.whenConnected(s -> grantAfterDelay(s, path, keep));
            },
            waitMillis,
            TimeUnit.MILLISECONDS);
  }

  /**
   * The delay is over: grants on the reply of one read of our node, which proves that our session
   * lived and our node stood, first, after the delay. A timer alone proves neither: the session may
   * have expired meanwhile, unheard (a paused process hears its expiry late), and a grant on it
   * would be a grant with no node. One round trip, on the failed path only, after a delay of
   * seconds; a clean handoff and a lock without a delay never send it.
   */
  private void grantAfterDelay(Step step, String path, long keep) {
    step.zk()
        .exists(
            path,
            null,
            (rc, p, c, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.OK && stat != null) {
                delaying.remove(path);
                step.granted();
              } else if (code == Code.OK || code == Code.NONODE) {
                delaying.remove(path, keep);
                judge.accept(step); // our node is gone although our session lives: list again
              } else if (ErrorKind.retryWhenConnected(code)) {
                step.whenConnected(s -> grantAfterDelay(s, path, keep));
              }
              // expiry: the session's news deal with it
            });
  }

  /**
   * Marks our node, for {@code inspect}, as waiting out a delay until {@code waitMillis} from now
   * (by this process's wall clock: a display, not a decision). Off the path of the grant; a waiter
   * watching our node lists again on the change, and our own watch takes it for ours, not a release
   * request.
   */
  private void markDelay(Step step, String path, long waitMillis) {
    Map<String, String> extra = new HashMap<>(extraData);
    extra.put(LOCK_DELAY_UNTIL, Long.toString(step.ctx().wallClock().millis() + waitMillis));
    step.zk()
        .setData(
            path,
            step.nodeData(kind, extra),
            -1,
            (rc, p, c, stat) -> {
              if (Code.get(rc) == Code.OK && stat != null) {
                step.wroteOwnData(path, stat.getVersion());
              }
            });
  }

  /** The server time a failure record keeps, when the record speaks ({@code pzxid == mzxid}). */
  private static long kept(byte[] data, Stat stat) {
    if (stat.getPzxid() != stat.getMzxid()) {
      return -1L;
    }
    long at = LockDelay.failedAt(data, stat.getMtime());
    return at == Long.MIN_VALUE ? -1L : at;
  }

  // ---------------------------------------------------------------- what a step knew

  /** See {@link #before}. */
  private static final class Before {
    /** Our immediate predecessor, gone; null for a newcomer. */
    final String predecessor;

    volatile boolean answered;
    volatile int rc;
    volatile byte[] data;
    volatile Stat stat;

    /** Our node's creation time (server time, ms), once created. */
    volatile long ctime;

    /** The directory's {@code cversion} as our first listing (after our create) read it. */
    volatile int postCversion = Integer.MIN_VALUE;

    Before(String predecessor) {
      this.predecessor = predecessor;
    }

    void read(int rc, byte[] data, Stat stat) {
      this.rc = rc;
      this.data = data;
      this.stat = stat;
      this.answered = true;
    }
  }

  /** A waiter's watch of the record while it waits on the head of the queue. */
  private static final class RecordWatch {
    /** The watched read of the record has answered. */
    volatile boolean read;

    /** The node the record named as released at that read, or null. */
    volatile String releasedRead;

    /** The record changed after that read. */
    volatile boolean changed;

    /** The head went before the record's read answered: the answer decides (the head's name). */
    volatile String decideOnRead;
  }

  @Override
  public String toString() {
    return "lock-delay " + delayMillis + " ms";
  }
}
