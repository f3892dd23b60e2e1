package io.zklock.sim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;

/**
 * Foreign clients of the simulation: Curator's recipes as Curator 5.9 implements them, rewritten
 * from its source (our own code, no Curator dependency), over a {@link SimZkClient}, in Curator's
 * blocking style on a {@link SimActor}:
 *
 * <ul>
 *   <li>the framework: a new ZooKeeper handle after an expiry ({@code ConnectionState.reset}), and
 *       after a disconnection as long as the session timeout (Curator 5's injected expiry); every
 *       call in a retry loop ({@code RetryLoopImpl}: CONNECTIONLOSS, OPERATIONTIMEOUT,
 *       SESSIONMOVED, SESSIONEXPIRED, with an exponential backoff of 3 retries) that first waits
 *       for a connection; protected creates ({@code _c_<uuid>-<name>}, found again by that id after
 *       a lost reply) with parents made as containers; guaranteed deletes;
 *   <li>{@code InterProcessMutex} ({@code LockInternals}, {@code StandardLockInternalsDriver}):
 *       nodes {@code _c_<uuid>-lock-<seq>} sorted by the text after {@code lock-}, the holder is
 *       the first, a waiter watches its predecessor with {@code getData} and wakes on any event;
 *   <li>{@code InterProcessReadWriteLock}: {@code __READ__}/{@code __WRIT__}, a reader holds when
 *       no writer is before it and watches the first writer;
 *   <li>{@code InterProcessSemaphoreV2}: the mutex {@code <path>/locks} admits one request, which
 *       creates its lease in {@code <path>/leases} and holds when that directory has at most {@code
 *       maxLeases} children, else waits (holding the mutex) for any change.
 * </ul>
 */
final class Curator {
  static final int RETRIES = 3;
  static final long BASE_SLEEP = 100 * Sim.MS;

  /** A Curator client process: one CuratorFramework, its handle replaced after an expiry. */
  static final class Framework {
    final String name;
    final SimProcess process;
    private final SimEnsemble ens;
    private final Net net;
    final int sessionMs;
    SimZkClient zk;
    private boolean connected;
    private final List<CompletableFuture<Void>> connectedWaiters = new ArrayList<>();
    private Sim.Ev injected;
    final List<SimZkClient> handles = new ArrayList<>();

    Framework(String name, SimProcess process, SimEnsemble ens, Net net, int sessionMs) {
      this.name = name;
      this.process = process;
      this.ens = ens;
      this.net = net;
      this.sessionMs = sessionMs;
      newHandle();
    }

    private void newHandle() {
      SimZkClient[] mine = new SimZkClient[1];
      mine[0] =
          new SimZkClient(
              process,
              ens,
              net,
              sessionMs,
              e -> {
                if (e.getType() == Watcher.Event.EventType.None && mine[0] == zk) {
                  state(e.getState());
                }
              });
      zk = mine[0];
      handles.add(zk);
    }

    /** Completes at the next connection state change (a ConnectionStateListener's news). */
    CompletableFuture<Void> nextState = new CompletableFuture<>();

    private void told() {
      CompletableFuture<Void> f = nextState;
      nextState = new CompletableFuture<>();
      f.complete(null);
    }

    private void state(Watcher.Event.KeeperState s) {
      told();
      switch (s) {
        case SyncConnected, ConnectedReadOnly -> {
          connected = true;
          if (injected != null) {
            injected.cancel();
            injected = null;
          }
          List<CompletableFuture<Void>> ws = List.copyOf(connectedWaiters);
          connectedWaiters.clear();
          ws.forEach(f -> f.complete(null));
        }
        case Disconnected -> {
          if (connected) {
            connected = false;
            // Curator 5: SUSPENDED for a session timeout is taken as an expiry
            injected =
                process.sim.after(
                    process.simDelay(zk.getSessionTimeout() * Sim.MS),
                    process,
                    "curator-injected-expiry",
                    () -> {
                      injected = null;
                      if (!connected) {
                        reset();
                      }
                    });
          }
        }
        case Expired -> {
          connected = false;
          reset();
        }
        default -> {}
      }
    }

    /** ConnectionState.reset: the old handle closed, a new one made (a new session). */
    private void reset() {
      process.trace("curator: new ZooKeeper handle");
      SimZkClient old = zk;
      newHandle();
      old.close();
    }

    long sessionId() {
      return zk.getSessionId();
    }

    boolean connectedNow() {
      return connected;
    }

    /** blockUntilConnectedOrTimedOut, then the call; retried as RetryLoopImpl retries. */
    <T> T call(SimActor self, Op<T> op) throws KeeperException, InterruptedException {
      int retry = 0;
      while (true) {
        waitConnected(self);
        CompletableFuture<Result<T>> f = new CompletableFuture<>();
        op.send(zk, f);
        Result<T> r = Workload.waitFor(self, f);
        if (r.rc == 0) {
          return r.value;
        }
        Code c = Code.get(r.rc);
        boolean retryable =
            c == Code.CONNECTIONLOSS
                || c == Code.OPERATIONTIMEOUT
                || c == Code.SESSIONMOVED
                || c == Code.SESSIONEXPIRED;
        if (!retryable || retry >= RETRIES) {
          throw KeeperException.create(c);
        }
        self.sleep(BASE_SLEEP * (1L << retry) * (1 + process.rnd.nextInt(2)));
        retry++;
      }
    }

    private void waitConnected(SimActor self) throws InterruptedException {
      if (connected) {
        return;
      }
      CompletableFuture<Void> f = new CompletableFuture<>();
      connectedWaiters.add(f);
      self.await(f, true, 15 * Sim.SEC); // Curator's default connection timeout
    }

    /** {@code create().creatingParentContainersIfNeeded().withProtection().withMode(m)}. */
    String createProtected(SimActor self, String parent, String name, byte[] data, CreateMode mode)
        throws KeeperException, InterruptedException {
      String id = uuid();
      String prefix = "_c_" + id + "-";
      int retry = 0;
      boolean first = true;
      while (true) {
        waitConnected(self);
        if (!first) {
          // protected mode: a create whose answer was lost may have made the node
          String found;
          try {
            found = findProtected(self, parent, prefix);
          } catch (KeeperException.ConnectionLossException e) {
            findAndDeleteInBackground(parent, prefix); // gave up inside the same retry loop
            throw e;
          }
          if (found != null) {
            return found;
          }
        }
        first = false;
        CompletableFuture<Result<String>> f = new CompletableFuture<>();
        zk.create(
            parent + "/" + prefix + name,
            data,
            ZooDefs.Ids.OPEN_ACL_UNSAFE,
            mode,
            (rc, p, ctx, made, stat) -> f.complete(new Result<>(rc, made)));
        Result<String> r = Workload.waitFor(self, f);
        Code c = Code.get(r.rc);
        if (c == Code.OK) {
          return r.value;
        }
        if (c == Code.NONODE) {
          mkdirs(self, parent);
          continue;
        }
        boolean retryable =
            c == Code.CONNECTIONLOSS
                || c == Code.OPERATIONTIMEOUT
                || c == Code.SESSIONMOVED
                || c == Code.SESSIONEXPIRED;
        if (!retryable || retry >= RETRIES) {
          if (c == Code.CONNECTIONLOSS) {
            findAndDeleteInBackground(parent, prefix);
          }
          throw KeeperException.create(c);
        }
        self.sleep(BASE_SLEEP * (1L << retry));
        retry++;
      }
    }

    /**
     * CreateBuilderImpl#forPath, CURATOR-45/79: a protected create that gives up on a connection
     * loss may have made its node, so FindAndDeleteProtectedNodeInBackground lists the parent once
     * connected (again after a connection loss), and deletes the node it finds by its id,
     * guaranteed. Without it, a node that nobody holds stands in the queue while its session lives.
     */
    void findAndDeleteInBackground(String parent, String prefix) {
      whenConnected(
          () ->
              zk.getChildren(
                  parent,
                  null,
                  (rc, p, ctx, kids, stat) -> {
                    Code c = Code.get(rc);
                    if (c == Code.OK) {
                      for (String k : kids) {
                        if (k.startsWith(prefix)) {
                          process.trace(
                              "curator: deletes its protected node " + k + " (CURATOR-45)");
                          deleteInBackground(parent + "/" + k);
                        }
                      }
                    } else if (c == Code.CONNECTIONLOSS) {
                      findAndDeleteInBackground(parent, prefix);
                    }
                  }));
    }

    /** delete().guaranteed().inBackground(): retried until it is done (or the node is gone). */
    private void deleteInBackground(String path) {
      whenConnected(
          () ->
              zk.delete(
                  path,
                  -1,
                  (rc, p, ctx) -> {
                    if (Code.get(rc) == Code.CONNECTIONLOSS) {
                      deleteInBackground(path);
                    }
                  }));
    }

    private void whenConnected(Runnable r) {
      if (connected) {
        r.run();
        return;
      }
      CompletableFuture<Void> f = new CompletableFuture<>();
      connectedWaiters.add(f);
      f.thenRun(r);
    }

    private String findProtected(SimActor self, String parent, String prefix)
        throws KeeperException, InterruptedException {
      List<String> kids;
      try {
        kids = getChildren(self, parent, null);
      } catch (KeeperException.NoNodeException e) {
        return null;
      }
      for (String k : kids) {
        if (k.startsWith(prefix)) {
          return parent + "/" + k;
        }
      }
      return null;
    }

    /** ZKPaths.mkdirs with containers (the parents of a protected create). */
    private void mkdirs(SimActor self, String path) throws KeeperException, InterruptedException {
      int i = 0;
      while ((i = path.indexOf('/', i + 1)) > 0 || i == -1) {
        String p = i < 0 ? path : path.substring(0, i);
        Code c =
            Code.get(
                call(
                    self,
                    (zk, f) ->
                        zk.create(
                            p,
                            new byte[0],
                            ZooDefs.Ids.OPEN_ACL_UNSAFE,
                            CreateMode.CONTAINER,
                            (rc, x, ctx, made, stat) ->
                                f.complete(
                                    new Result<>(
                                        rc == Code.NODEEXISTS.intValue() ? 0 : rc,
                                        rc == Code.NODEEXISTS.intValue() ? 0 : rc)))));
        if (c != Code.OK) {
          throw KeeperException.create(c);
        }
        if (i < 0) {
          return;
        }
      }
    }

    List<String> getChildren(SimActor self, String path, Watcher w)
        throws KeeperException, InterruptedException {
      return call(
          self,
          (zk, f) ->
              zk.getChildren(
                  path, w, (rc, p, ctx, kids, stat) -> f.complete(new Result<>(rc, kids))));
    }

    /** getData with a watcher; null when the node is gone (NONODE). */
    byte[] getData(SimActor self, String path, Watcher w)
        throws KeeperException, InterruptedException {
      try {
        return call(
            self,
            (zk, f) ->
                zk.getData(
                    path, w, (rc, p, ctx, data, stat) -> f.complete(new Result<>(rc, data))));
      } catch (KeeperException.NoNodeException e) {
        return null;
      }
    }

    /** {@code delete().guaranteed()}: retried until done, gone, or its session is over. */
    void deleteGuaranteed(SimActor self, String path) throws InterruptedException {
      long session = sessionId();
      while (true) {
        try {
          call(
              self,
              (zk, f) -> zk.delete(path, -1, (rc, p, ctx) -> f.complete(new Result<>(rc, null))));
          return;
        } catch (KeeperException e) {
          if (e.code() == Code.NONODE || sessionId() != session) {
            return; // gone, or went with its session
          }
        }
      }
    }

    private String uuid() {
      return new java.util.UUID(process.rnd.nextLong(), process.rnd.nextLong()).toString();
    }
  }

  /** One ZooKeeper call's outcome. */
  record Result<T>(int rc, T value) {}

  /** One asynchronous ZooKeeper call, completing {@code f}. */
  @FunctionalInterface
  interface Op<T> {
    void send(SimZkClient zk, CompletableFuture<Result<T>> f);
  }

  /** A watcher that completes a future on any event (Curator's postSafeNotify). */
  static final class Notify implements Watcher {
    final CompletableFuture<Void> fired = new CompletableFuture<>();

    @Override
    public void process(org.apache.zookeeper.WatchedEvent event) {
      fired.complete(null);
    }
  }

  /**
   * LockInternals with StandardLockInternalsDriver (or the read-write lock's drivers): the path it
   * holds, or null when {@code waitNanos} (>= 0) ran out.
   */
  static final class Mutex {
    final Framework fw;
    final String basePath;
    final String lockName;
    final int maxLeases;
    final boolean reader; // the read side of a read-write lock

    Mutex(Framework fw, String basePath, String lockName, int maxLeases, boolean reader) {
      this.fw = fw;
      this.basePath = basePath;
      this.lockName = lockName;
      this.maxLeases = maxLeases;
      this.reader = reader;
    }

    static String fixForSorting(String str, String lockName) {
      int index = str.lastIndexOf(lockName);
      if (index >= 0) {
        index += lockName.length();
        return index <= str.length() ? str.substring(index) : "";
      }
      return str;
    }

    private String sortKey(String name) {
      if (lockName.equals("lock-")) {
        return fixForSorting(name, lockName);
      }
      // the read-write lock's SortingLockInternalsDriver
      return fixForSorting(fixForSorting(name, "__READ__"), "__WRIT__");
    }

    List<String> sorted(List<String> children) {
      List<String> s = new ArrayList<>(children);
      s.sort((a, b) -> sortKey(a).compareTo(sortKey(b)));
      return s;
    }

    /** acquire(time): the node held, or null on timeout. */
    String acquire(SimActor self, long waitNanos, byte[] data)
        throws KeeperException, InterruptedException {
      long start = fw.process.sim.now();
      int retry = 0;
      while (true) {
        String ourPath =
            fw.createProtected(self, basePath, lockName, data, CreateMode.EPHEMERAL_SEQUENTIAL);
        try {
          return loop(self, ourPath, start, waitNanos);
        } catch (KeeperException.NoNodeException e) {
          // "Sequential path not found": the session went; the retry policy allows a few
          if (retry++ >= RETRIES) {
            throw e;
          }
        }
      }
    }

    private String loop(SimActor self, String ourPath, long start, long waitNanos)
        throws KeeperException, InterruptedException {
      try {
        while (true) {
          List<String> children;
          try {
            children = sorted(fw.getChildren(self, basePath, null));
          } catch (KeeperException.NoNodeException e) {
            children = List.of();
          }
          String ours = ourPath.substring(basePath.length() + 1);
          String watch;
          if (reader) {
            int index = 0;
            int firstWrite = Integer.MAX_VALUE;
            int ourIndex = -1;
            for (String n : children) {
              if (n.contains("__WRIT__")) {
                firstWrite = Math.min(index, firstWrite);
              } else if (n.startsWith(ours)) {
                ourIndex = index;
                break;
              }
              index++;
            }
            if (ourIndex < 0) {
              throw new KeeperException.NoNodeException("Sequential path not found: " + ours);
            }
            if (ourIndex < firstWrite) {
              return ourPath;
            }
            watch = children.get(firstWrite);
          } else {
            int ourIndex = children.indexOf(ours);
            if (ourIndex < 0) {
              throw new KeeperException.NoNodeException("Sequential path not found: " + ours);
            }
            if (ourIndex < maxLeases) {
              return ourPath;
            }
            watch = children.get(ourIndex - maxLeases);
          }
          Notify n = new Notify();
          byte[] there = fw.getData(self, basePath + "/" + watch, n);
          if (there == null) {
            continue; // deleted: try again at once
          }
          if (waitNanos >= 0) {
            long left = waitNanos - (fw.process.sim.now() - start);
            if (left <= 0) {
              fw.deleteGuaranteed(self, ourPath);
              return null;
            }
            self.await(n.fired, true, left);
          } else {
            self.await(n.fired, true, -1L);
          }
        }
      } catch (KeeperException.NoNodeException e) {
        throw e;
      } catch (Exception | Error e) {
        fw.deleteGuaranteed(self, ourPath);
        throw e;
      }
    }

    void release(SimActor self, String path) throws InterruptedException {
      fw.deleteGuaranteed(self, path);
    }
  }

  /** InterProcessSemaphoreV2 with one lease per acquire. */
  static final class SemaphoreV2 {
    final Framework fw;
    final Mutex lock;
    final String leasesPath;
    final int maxLeases;

    SemaphoreV2(Framework fw, String path, int maxLeases) {
      this.fw = fw;
      this.lock = new Mutex(fw, path + "/locks", "lock-", 1, false);
      this.leasesPath = path + "/leases";
      this.maxLeases = maxLeases;
    }

    /** acquire(time): the lease's path, or null on timeout. */
    String acquire(SimActor self, long waitNanos) throws KeeperException, InterruptedException {
      long start = fw.process.sim.now();
      int retry = 0;
      while (true) {
        long left = waitNanos < 0 ? -1 : waitNanos - (fw.process.sim.now() - start);
        if (waitNanos >= 0 && left <= 0) {
          return null;
        }
        String admission = lock.acquire(self, left, new byte[0]);
        if (admission == null) {
          return null;
        }
        try {
          String lease =
              fw.createProtected(
                  self, leasesPath, "lease-", new byte[0], CreateMode.EPHEMERAL_SEQUENTIAL);
          String nodeName = lease.substring(lease.lastIndexOf('/') + 1);
          boolean success = false;
          try {
            while (true) {
              Notify n = new Notify();
              List<String> children = fw.getChildren(self, leasesPath, n);
              if (!children.contains(nodeName)) {
                break; // RETRY_DUE_TO_MISSING_NODE
              }
              if (children.size() <= maxLeases) {
                success = true;
                return lease;
              }
              if (waitNanos >= 0) {
                long l = waitNanos - (fw.process.sim.now() - start);
                if (l <= 0) {
                  return null;
                }
                self.await(n.fired, true, l);
              } else {
                self.await(n.fired, true, -1L);
              }
            }
          } finally {
            if (!success) {
              fw.deleteGuaranteed(self, lease);
            }
          }
        } finally {
          lock.release(self, admission);
        }
        if (retry++ >= RETRIES) {
          throw new KeeperException.NoNodeException(
              "Sequential path not found - possible session loss");
        }
      }
    }
  }

  /**
   * LeaderLatch: a protected {@code latch-} node with the participant id as data; the first by the
   * text after {@code latch-} leads once a read of its own node shows its session as the owner; the
   * others watch their predecessor; a leader learns of its loss only from the connection's state
   * (LOST), and checks again on RECONNECTED; a node gone from the listing is made again.
   */
  static final class LeaderLatch {
    final Framework fw;
    final String latchPath;
    final String id;
    String ourPath;
    boolean leader;

    LeaderLatch(Framework fw, String latchPath, String id) {
      this.fw = fw;
      this.latchPath = latchPath;
      this.id = id;
    }

    /**
     * Takes part until {@code until} (simulated time), telling {@code elected}/{@code revoked} as
     * leadership changes; then closes (deletes its node).
     */
    void run(SimActor self, long until, Runnable elected, Runnable revoked)
        throws InterruptedException {
      try {
        reset(self);
        while (fw.process.sim.now() < until) {
          List<String> children;
          try {
            children = fw.getChildren(self, latchPath, null);
          } catch (KeeperException.NoNodeException e) {
            setLeader(false, elected, revoked);
            reset(self);
            continue;
          }
          List<String> sorted = new ArrayList<>(children);
          sorted.sort(
              (a, b) ->
                  Mutex.fixForSorting(a, "latch-").compareTo(Mutex.fixForSorting(b, "latch-")));
          int ourIndex =
              ourPath == null
                  ? -1
                  : sorted.indexOf(ourPath.substring(ourPath.lastIndexOf('/') + 1));
          if (ourIndex < 0) {
            setLeader(false, elected, revoked);
            reset(self);
            continue;
          }
          CompletableFuture<Void> state = fw.nextState;
          if (ourIndex == 0) {
            CompletableFuture<Result<org.apache.zookeeper.data.Stat>> f = new CompletableFuture<>();
            String mine = ourPath;
            fw.zk.exists(mine, null, (rc, p, ctx, stat) -> f.complete(new Result<>(rc, stat)));
            Result<org.apache.zookeeper.data.Stat> r = Workload.waitFor(self, f);
            if (r.rc() != 0
                || r.value() == null
                || r.value().getEphemeralOwner() != fw.sessionId()) {
              setLeader(false, elected, revoked);
              reset(self);
              continue;
            }
            setLeader(true, elected, revoked);
            // a leader sets no watch: it hears only the connection's state
            self.await(state, true, Math.max(1, until - fw.process.sim.now()));
            if (fw.handles.get(fw.handles.size() - 1) != fw.zk || !fw.connectedNow()) {
              setLeader(false, elected, revoked); // SUSPENDED is not an error state; LOST is
            }
            continue;
          }
          setLeader(false, elected, revoked);
          Notify n = new Notify();
          byte[] there = fw.getData(self, latchPath + "/" + sorted.get(ourIndex - 1), n);
          if (there == null) {
            continue;
          }
          CompletableFuture<Object> either = CompletableFuture.anyOf(n.fired, state);
          self.await(either, true, Math.max(1, until - fw.process.sim.now()));
        }
      } catch (KeeperException e) {
        // Curator logs a background failure and goes on; here the participant stops
      } finally {
        setLeader(false, elected, revoked);
        if (ourPath != null) {
          fw.deleteGuaranteed(self, ourPath);
          ourPath = null;
        }
      }
    }

    private void setLeader(boolean now, Runnable elected, Runnable revoked) {
      if (now && !leader) {
        leader = true;
        elected.run();
      } else if (!now && leader) {
        leader = false;
        revoked.run();
      }
    }

    private void reset(SimActor self) throws KeeperException, InterruptedException {
      if (ourPath != null) {
        fw.deleteGuaranteed(self, ourPath);
        ourPath = null;
      }
      ourPath =
          fw.createProtected(
              self,
              latchPath,
              "latch-",
              id.getBytes(java.nio.charset.StandardCharsets.UTF_8),
              CreateMode.EPHEMERAL_SEQUENTIAL);
    }
  }

  static List<String> none() {
    return Collections.emptyList();
  }
}
