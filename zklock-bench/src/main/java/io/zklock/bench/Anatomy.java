package io.zklock.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * A profile of the uncontended cycle: the request patterns of zklock and Curator replayed with raw
 * ZooKeeper calls, one ingredient at a time, interleaved like the scenarios. It tells what each
 * request and each thread hop of an acquire+release costs on this machine, measured rather than
 * guessed. Not a target; a diagnostic printed after the tables.
 */
final class Anatomy {
  private Anatomy() {}

  interface Cycle {
    void run(ZooKeeper zk, String dir, ExecutorService executor) throws Exception;
  }

  record Variant(String name, Cycle cycle) {}

  static final Watcher NOOP = e -> {};

  /**
   * A stand-in for the library's scheduler (two threads, cancelled tasks removed) on which zklock
   * schedules the holder's own-node watch 50 ms after each grant.
   */
  static final ScheduledThreadPoolExecutor TIMERS = timers();

  private static ScheduledThreadPoolExecutor timers() {
    ScheduledThreadPoolExecutor t =
        new ScheduledThreadPoolExecutor(
            2,
            r -> {
              Thread th = new Thread(r, "anatomy-timer");
              th.setDaemon(true);
              return th;
            });
    t.setRemoveOnCancelPolicy(true);
    return t;
  }

  /** The replays, then the libraries themselves on the same server (and proxy). */
  static List<Variant> variants(BenchLock zklock, BenchLock curator) {
    List<Variant> v = variants();
    v.add(new Variant("zklock: acquire; release()", (zk, dir, ex) -> zklock.acquire().release()));
    v.add(
        new Variant(
            "zklock: acquire; releaseAsync()", (zk, dir, ex) -> zklock.acquire().releaseAsync()));
    v.add(new Variant("Curator: acquire; release()", (zk, dir, ex) -> curator.acquire().release()));
    return v;
  }

  static List<Variant> variants() {
    List<Variant> v = new ArrayList<>();
    v.add(
        new Variant("create; delete (raw floor)", (zk, dir, ex) -> zk.delete(create(zk, dir), -1)));
    v.add(
        new Variant(
            "create; getChildren; delete (Curator's requests)",
            (zk, dir, ex) -> {
              String p = create(zk, dir);
              zk.getChildren(dir, false);
              zk.delete(p, -1);
            }));
    v.add(
        new Variant(
            "create+getChildren pipelined; delete (zklock, holds < 50 ms)",
            (zk, dir, ex) -> zk.delete(createAndList(zk, dir, false, null).join(), -1)));
    v.add(
        new Variant(
            "  + grant handed through an executor (zklock's thread hop)",
            (zk, dir, ex) -> zk.delete(createAndList(zk, dir, false, ex).join(), -1)));
    v.add(
        new Variant(
            "  + executor hop + 50 ms timer set at the grant, cancelled at release (zklock today)",
            (zk, dir, ex) -> {
              String p = createAndList(zk, dir, false, TIMERS).join();
              ScheduledFuture<?> timer = TIMERS.schedule(() -> {}, 50, TimeUnit.MILLISECONDS);
              timer.cancel(false);
              zk.delete(p, -1);
            }));
    v.add(
        new Variant(
            "  + exists(own) watch; removeWatches(watcher)+delete (zklock before 5548690)",
            (zk, dir, ex) -> {
              String p = createAndList(zk, dir, true, ex).join();
              zk.removeWatches(p, NOOP, WatcherType.Data, true, (rc, x, c) -> {}, null);
              zk.delete(p, -1);
            }));
    v.add(
        new Variant(
            "  + exists(own) watch; removeAllWatches+delete (zklock, longer holds)",
            (zk, dir, ex) -> {
              String p = createAndList(zk, dir, true, ex).join();
              zk.removeAllWatches(p, WatcherType.Data, true, (rc, x, c) -> {}, null);
              zk.delete(p, -1);
            }));
    v.add(
        new Variant(
            "  + exists(own) watch; delete, the watch fires",
            (zk, dir, ex) -> zk.delete(createAndList(zk, dir, true, ex).join(), -1)));
    v.add(
        new Variant(
            "create+getChildren pipelined; async delete (floor of releaseAsync)",
            (zk, dir, ex) -> {
              String p = createAndList(zk, dir, false, null).join();
              zk.delete(p, -1, (rc, x, c) -> {}, null);
            }));
    return v;
  }

  static String create(ZooKeeper zk, String dir) throws Exception {
    return zk.create(
        dir + "/m-", new byte[16], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
  }

  /** create and getChildren sent back to back; the future completes with the node's path. */
  static CompletableFuture<String> createAndList(
      ZooKeeper zk, String dir, boolean ownWatch, ExecutorService executor) {
    CompletableFuture<String> done = new CompletableFuture<>();
    String[] created = new String[1];
    zk.create(
        dir + "/m-",
        new byte[16],
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.EPHEMERAL_SEQUENTIAL,
        (AsyncCallback.StringCallback)
            (rc, p, c, name) -> {
              created[0] = name;
              if (ownWatch) {
                zk.exists(name, NOOP, (rc2, p2, c2, s) -> {}, null);
              }
            },
        null);
    zk.getChildren(
        dir,
        false,
        (AsyncCallback.ChildrenCallback)
            (rc, p, c, children) -> {
              if (executor == null) {
                done.complete(created[0]);
              } else {
                executor.execute(() -> done.complete(created[0]));
              }
            },
        null);
    return done;
  }

  /** Runs every variant, interleaved, and prints rate, requests and watch events per cycle. */
  static Map<String, double[]> run(Env env, PrintStream out) throws Exception {
    Map<String, List<Window>> windows = new LinkedHashMap<>();
    ExecutorService executor = Executors.newFixedThreadPool(2);
    String regime = env.regime();
    env.countFor(Impl.ZKLOCK); // the windows read ZooKeeper's counters
    out.print("anatomy" + (regime.isEmpty() ? "" : "@" + regime) + ":");
    try (RawZk raw = new RawZk(env.connectString());
        ZkLockClient zkClient = new ZkLockClient(env.connectString(), 0);
        CuratorClient curClient = new CuratorClient(env.connectString())) {
      List<Variant> variants =
          variants(zkClient.mutex("anatomy-zklock"), curClient.mutex("anatomy-curator"));
      variants.forEach(v -> windows.put(v.name(), new ArrayList<>()));
      String dir = "/bench-anatomy";
      raw.ensurePersistent(dir);
      int reps = 2;
      for (int round = env.config.quick ? 0 : -1; round < reps; round++) {
        for (int k = 0; k < variants.size(); k++) {
          Variant v = variants.get(Math.floorMod(k + round, variants.size()));
          Window w = Loop.run(env, List.of(() -> v.cycle().run(raw.zk, dir, executor)));
          if (round >= 0) {
            windows.get(v.name()).add(w);
          }
          out.print(".");
          out.flush();
        }
      }
    } finally {
      executor.shutdownNow();
    }
    out.println();
    Map<String, double[]> summary = new LinkedHashMap<>();
    List<String[]> rows = new ArrayList<>();
    double floor = Double.NaN;
    double floorRoundTrips = 2; // create; delete: two acknowledged requests, one after the other
    for (var e : windows.entrySet()) {
      double rate = Result.median(e.getValue().stream().mapToDouble(Window::value).toArray());
      double req =
          Result.median(e.getValue().stream().mapToDouble(Window::requestsPerOp).toArray());
      double ev =
          Result.median(e.getValue().stream().mapToDouble(Window::watchEventsPerOp).toArray());
      if (Double.isNaN(floor)) {
        floor = rate;
      }
      double roundTrips = floorRoundTrips * floor / rate;
      summary.put(e.getKey(), new double[] {rate, req, ev, roundTrips});
      rows.add(
          new String[] {
            e.getKey(),
            Report.num(rate),
            String.format(java.util.Locale.ROOT, "%.0f", 1e6 / rate),
            Report.ratio(rate / floor),
            Report.num(roundTrips),
            Report.num(req),
            Report.num(ev)
          });
    }
    out.println();
    out.println(
        "Anatomy of an uncontended cycle"
            + (regime.isEmpty() ? "" : ", " + regime + " round trip")
            + " (raw ZooKeeper replays and the libraries, medians; cycle time in create;delete"
            + " round trips)");
    Report.print(
        out,
        new String[] {
          "request pattern",
          "cycles/s",
          "µs/cycle",
          "vs floor",
          "≈ round trips",
          "req/op",
          "watch ev/op"
        },
        rows);
    return summary;
  }
}
