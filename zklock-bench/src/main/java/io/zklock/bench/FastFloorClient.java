package io.zklock.bench;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Stat;

/**
 * The fair-queue floor with a one-request uncontended acquire: {@code multi{create(dir/n-,
 * EPHEMERAL_SEQUENTIAL), setData(dir, empty, -1)}}. The {@code setData}'s Stat is the directory's
 * after the create of the same transaction, so {@code numChildren == 1} proves that our node is
 * alone in the queue: held, with no listing. Otherwise it goes on as {@link FloorClient}: list, one
 * {@code exists} watch on the predecessor, whose deletion is the grant.
 *
 * <p>Uncontended: 2 requests (the {@code multi}, the {@code delete}), 2 round trips per
 * acquire+release; contended: 4 requests plus the {@code multi}'s write of the directory. It
 * overwrites the directory's data unconditionally, which a real lock may not do where the directory
 * carries data (lock-delay records, stored counts, a foreign library's queue), and it has {@link
 * FloorClient}'s limits besides: the bound of what one request per uncontended acquisition can buy,
 * not a lock to use.
 */
final class FastFloorClient extends RawZk implements BenchLock.Client {
  static final String ROOT = "/bench-fast-floor";
  private static final byte[] EMPTY = new byte[0];

  /**
   * Whether the directory is written only at a version known to hold no data ({@code setData(dir,
   * empty, version)}): the version learnt from our last write or listing of it. A stale version
   * fails the whole {@code multi} (nothing created), and the acquisition goes the listing way,
   * which learns the version again.
   */
  private final boolean versioned;

  private final Map<String, Integer> knownEmpty = new ConcurrentHashMap<>();

  /**
   * Acquisitions of the versioned variant: tries of the one request, those that failed on a stale
   * version, and those that went the listing way with no version known.
   */
  private final AtomicLong tries = new AtomicLong();

  private final AtomicLong stale = new AtomicLong();
  private final AtomicLong unknown = new AtomicLong();

  FastFloorClient(String connectString) throws IOException, InterruptedException {
    this(connectString, false);
  }

  FastFloorClient(String connectString, boolean versioned)
      throws IOException, InterruptedException {
    super(connectString);
    this.versioned = versioned;
  }

  /** Made once per name: {@link #mutex} makes its directory with a blocking round trip first. */
  @Override
  public BenchLock perEntity(String name) throws Exception {
    return madeOnce(name, this::mutex);
  }

  @Override
  public BenchLock mutex(String name) throws Exception {
    String dir = queueDir(name);
    ensurePersistent(dir);
    return () -> {
      String me = queue(dir);
      return rawHeld(me);
    };
  }

  /** Creates our node and writes the directory in one request; lists only when not alone. */
  private String queue(String dir) throws Exception {
    Integer version = versioned ? knownEmpty.get(dir) : Integer.valueOf(-1);
    String me = null;
    List<String> children = null;
    if (version != null) {
      try {
        List<OpResult> results =
            zk.multi(
                List.of(
                    Op.create(
                        dir + "/n-",
                        EMPTY,
                        ZooDefs.Ids.OPEN_ACL_UNSAFE,
                        CreateMode.EPHEMERAL_SEQUENTIAL),
                    Op.setData(dir, EMPTY, version)));
        me = ((OpResult.CreateResult) results.get(0)).getPath();
        Stat dirStat = ((OpResult.SetDataResult) results.get(1)).getStat();
        if (versioned) {
          tries.incrementAndGet();
          knownEmpty.put(dir, dirStat.getVersion());
        }
        if (dirStat.getNumChildren() == 1) {
          return me;
        }
      } catch (KeeperException.BadVersionException e) {
        tries.incrementAndGet();
        stale.incrementAndGet();
        knownEmpty.remove(dir);
      }
    } else {
      unknown.incrementAndGet();
    }
    if (me == null) {
      // the listing way, learning the directory's version: create and list it with its Stat
      me =
          zk.create(
              dir + "/n-", EMPTY, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
      Stat dirStat = new Stat();
      children = zk.getChildren(dir, false, dirStat);
      if (dirStat.getDataLength() == 0) {
        knownEmpty.put(dir, dirStat.getVersion());
      }
    } else {
      children = zk.getChildren(dir, false);
    }
    return FloorClient.awaitTurn(zk, dir, me, children);
  }

  @Override
  public BenchLock readLock(String name) {
    throw new UnsupportedOperationException("the fast fair-queue floor is a mutex");
  }

  @Override
  public BenchLock writeLock(String name) {
    throw new UnsupportedOperationException("the fast fair-queue floor is a mutex");
  }

  @Override
  public BenchLock semaphore(String name, int permits) {
    throw new UnsupportedOperationException("the fast fair-queue floor is a mutex");
  }

  /**
   * Of the versioned variant's acquisitions so far: {tries of the one request, those of them that
   * failed on a stale version, those that went the listing way with no version known}.
   */
  long[] versionedCounts() {
    return new long[] {tries.get(), stale.get(), unknown.get()};
  }

  /**
   * Puts the versioned variant's shares of acquisitions (warm-up included) into {@code w}: made by
   * the one request, sent a {@code multi} that failed on a stale version.
   */
  static Window withVersionedShares(Window w, List<BenchLock.Client> clients) {
    long tries = 0;
    long stale = 0;
    long unknown = 0;
    for (BenchLock.Client c : clients) {
      if (!(c instanceof FastFloorClient f) || !f.versioned) {
        return w;
      }
      long[] n = f.versionedCounts();
      tries += n[0];
      stale += n[1];
      unknown += n[2];
    }
    double all = tries + unknown;
    if (all > 0) {
      w.extra().put("one-request share", (tries - stale) / all);
      w.extra().put("stale-version share", stale / all);
    }
    return w;
  }

  @Override
  public String queueDir(String name) {
    return ROOT + "/" + name;
  }
}
