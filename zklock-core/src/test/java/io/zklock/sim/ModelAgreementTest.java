package io.zklock.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.testkit.EmbeddedZooKeeper;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The simulated ensemble answers as a real ZooKeeper server does: the same random script of
 * requests of one client (creates of every mode, deletes and writes with and without versions,
 * reads with watches, multi that commit or fail, read-only multi, sync) runs against an embedded
 * ZooKeeper 3.9 server and against the simulation, and every answer (code, created name, the stat's
 * versions and counts, children, each op of a multi) and every watch event must agree.
 */
@Tag("server")
class ModelAgreementTest {
  static EmbeddedZooKeeper server;

  @BeforeAll
  static void start() {
    server = EmbeddedZooKeeper.standalone().tickTime(Duration.ofMillis(100)).start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  /** One call on a client, its outcome told to {@code out} as text. */
  private interface Client {
    void create(String path, byte[] data, CreateMode mode, AsyncCallback.Create2Callback cb);

    void delete(String path, int version, AsyncCallback.VoidCallback cb);

    void setData(String path, byte[] data, int version, AsyncCallback.StatCallback cb);

    void exists(String path, Watcher w, AsyncCallback.StatCallback cb);

    void getData(String path, Watcher w, AsyncCallback.DataCallback cb);

    void getChildren(String path, Watcher w, AsyncCallback.Children2Callback cb);

    void multi(List<Op> ops, AsyncCallback.MultiCallback cb);

    void sync(String path, AsyncCallback.VoidCallback cb);

    /** Runs until the outcome of the call just made is in. */
    void settle(CompletableFuture<String> outcome) throws Exception;

    /**
     * Closes the client and runs until its default watcher has been told Closed: the events of its
     * own ephemerals, deleted by the close, come before.
     */
    void closeAndSettle() throws Exception;
  }

  private static String stat(Stat s) {
    return s == null
        ? "-"
        : "v"
            + s.getVersion()
            + " cv"
            + s.getCversion()
            + " n"
            + s.getNumChildren()
            + " len"
            + s.getDataLength()
            + (s.getEphemeralOwner() != 0 ? " eph" : "");
  }

  private static String results(List<OpResult> rs) {
    if (rs == null) {
      return "null";
    }
    List<String> out = new ArrayList<>();
    for (OpResult r : rs) {
      if (r instanceof OpResult.ErrorResult e) {
        out.add("error " + Code.get(e.getErr()));
      } else if (r instanceof OpResult.CreateResult c) {
        out.add("created " + c.getPath() + " " + stat(c.getStat()));
      } else if (r instanceof OpResult.SetDataResult sd) {
        out.add("set " + stat(sd.getStat()));
      } else if (r instanceof OpResult.GetChildrenResult g) {
        List<String> kids = new ArrayList<>(g.getChildren());
        Collections.sort(kids);
        out.add("children " + kids);
      } else if (r instanceof OpResult.GetDataResult g) {
        out.add(
            "data " + new String(g.getData(), StandardCharsets.UTF_8) + " " + stat(g.getStat()));
      } else {
        out.add(r.getClass().getSimpleName());
      }
    }
    return out.toString();
  }

  /** Runs the script of {@code seed} on {@code c}: one line per call and per watch event. */
  private static List<String> script(long seed, Client c, String root) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    List<String> log = new ArrayList<>();
    String[] paths = {root + "/a", root + "/a/b", root + "/a/c", root + "/d", root + "/d/e"};
    Watcher watcher =
        e -> {
          if (e.getType() != Watcher.Event.EventType.None) {
            log.add("  event " + e.getType() + " " + e.getPath().substring(root.length()));
          }
        };
    CreateMode[] modes = {
      CreateMode.PERSISTENT,
      CreateMode.EPHEMERAL,
      CreateMode.PERSISTENT_SEQUENTIAL,
      CreateMode.EPHEMERAL_SEQUENTIAL,
      CreateMode.CONTAINER
    };
    CompletableFuture<String> done = new CompletableFuture<>();
    done.complete("");
    for (int i = 0; i < 60; i++) {
      String p = paths[r.nextInt(paths.length)];
      int version = r.nextInt(3) - 1; // -1, 0 or 1
      byte[] data = ("x" + r.nextInt(3)).getBytes(StandardCharsets.UTF_8);
      boolean watch = r.nextBoolean();
      CompletableFuture<String> out = new CompletableFuture<>();
      Consumer<String> tell = s -> out.complete(s.replace(root, ""));
      switch (r.nextInt(9)) {
        case 0, 1 -> {
          CreateMode m = modes[r.nextInt(modes.length)];
          c.create(
              p,
              data,
              m,
              (rc, x, ctx, name, s) ->
                  tell.accept(
                      "create " + p + " " + m + " " + Code.get(rc) + " " + name + " " + stat(s)));
        }
        case 2 ->
            c.delete(
                p,
                version,
                (rc, x, ctx) -> tell.accept("delete " + p + " " + version + " " + Code.get(rc)));
        case 3 ->
            c.setData(
                p,
                data,
                version,
                (rc, x, ctx, s) ->
                    tell.accept(
                        "setData " + p + " " + version + " " + Code.get(rc) + " " + stat(s)));
        case 4 ->
            c.exists(
                p,
                watch ? watcher : null,
                (rc, x, ctx, s) -> tell.accept("exists " + p + " " + Code.get(rc) + " " + stat(s)));
        case 5 ->
            c.getData(
                p,
                watch ? watcher : null,
                (rc, x, ctx, d, s) ->
                    tell.accept(
                        "getData "
                            + p
                            + " "
                            + Code.get(rc)
                            + " "
                            + (d == null ? "-" : new String(d, StandardCharsets.UTF_8))
                            + " "
                            + stat(s)));
        case 6 ->
            c.getChildren(
                p,
                watch ? watcher : null,
                (rc, x, ctx, kids, s) -> {
                  List<String> k = kids == null ? null : new ArrayList<>(kids);
                  if (k != null) {
                    Collections.sort(k);
                  }
                  tell.accept("getChildren " + p + " " + Code.get(rc) + " " + k + " " + stat(s));
                });
        case 7 -> {
          String q = paths[r.nextInt(paths.length)];
          List<Op> ops =
              r.nextBoolean()
                  ? List.of(
                      Op.create(
                          q, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL),
                      Op.check(p, version),
                      Op.setData(p, data, -1))
                  : List.of(Op.setData(p, data, version), Op.delete(q, -1));
          c.multi(
              ops, (rc, x, ctx, rs) -> tell.accept("multi " + Code.get(rc) + " " + results(rs)));
        }
        default -> {
          if (r.nextBoolean()) {
            String q = paths[r.nextInt(paths.length)];
            c.multi(
                List.of(Op.getChildren(p), Op.getData(q)),
                (rc, x, ctx, rs) -> tell.accept("multiRead " + Code.get(rc) + " " + results(rs)));
          } else {
            c.sync(p, (rc, x, ctx) -> tell.accept("sync " + Code.get(rc)));
          }
        }
      }
      c.settle(out);
      log.add(out.get(10, TimeUnit.SECONDS));
    }
    c.closeAndSettle();
    log.add("closed");
    return List.copyOf(log);
  }

  /** The real server, through ZooKeeper's own client. */
  static List<String> onTheServer(long seed) throws Exception {
    CompletableFuture<Void> connected = new CompletableFuture<>();
    CompletableFuture<Void> closed = new CompletableFuture<>();
    ZooKeeper zk =
        new ZooKeeper(
            server.connectString(),
            10_000,
            e -> {
              if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.complete(null);
              } else if (e.getState() == Watcher.Event.KeeperState.Closed) {
                closed.complete(null);
              }
            });
    try {
      connected.get(20, TimeUnit.SECONDS);
      String root = "/agree-" + seed;
      zk.create(root, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      return script(
          seed,
          new Client() {
            @Override
            public void create(
                String path, byte[] data, CreateMode mode, AsyncCallback.Create2Callback cb) {
              zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, mode, cb, null);
            }

            @Override
            public void delete(String path, int version, AsyncCallback.VoidCallback cb) {
              zk.delete(path, version, cb, null);
            }

            @Override
            public void setData(
                String path, byte[] data, int version, AsyncCallback.StatCallback cb) {
              zk.setData(path, data, version, cb, null);
            }

            @Override
            public void exists(String path, Watcher w, AsyncCallback.StatCallback cb) {
              if (w == null) {
                zk.exists(path, false, cb, null);
              } else {
                zk.exists(path, w, cb, null);
              }
            }

            @Override
            public void getData(String path, Watcher w, AsyncCallback.DataCallback cb) {
              if (w == null) {
                zk.getData(path, false, cb, null);
              } else {
                zk.getData(path, w, cb, null);
              }
            }

            @Override
            public void getChildren(String path, Watcher w, AsyncCallback.Children2Callback cb) {
              if (w == null) {
                zk.getChildren(path, false, cb, null);
              } else {
                zk.getChildren(path, w, cb, null);
              }
            }

            @Override
            public void multi(List<Op> ops, AsyncCallback.MultiCallback cb) {
              zk.multi(ops, cb, null);
            }

            @Override
            public void sync(String path, AsyncCallback.VoidCallback cb) {
              zk.sync(path, cb, null);
            }

            @Override
            public void settle(CompletableFuture<String> outcome) throws Exception {
              outcome.get(10, TimeUnit.SECONDS);
              // the events of a call are delivered before its answer, on the same thread: let a
              // round trip pass so that the answer's own callback has returned
              CompletableFuture<Void> f = new CompletableFuture<>();
              zk.sync("/", (rc, p, ctx) -> f.complete(null), null);
              f.get(10, TimeUnit.SECONDS);
            }

            @Override
            public void closeAndSettle() throws Exception {
              zk.close();
              closed.get(10, TimeUnit.SECONDS);
            }
          },
          root);
    } finally {
      zk.close();
    }
  }

  /** The simulation: one server, one client, no fault. */
  static List<String> inTheSimulation(long seed) throws Exception {
    Sim sim = new Sim(seed, new Trace(0, false));
    Net net = new Net(sim);
    SimEnsemble ens = new SimEnsemble(sim, net, 1, 100, 0);
    ens.start();
    SimProcess p = new SimProcess(sim, "agree", sim.split(), 1.0);
    boolean[] closed = {false};
    SimZkClient zk =
        new SimZkClient(
            p,
            ens,
            net,
            10_000,
            e -> closed[0] |= e.getState() == Watcher.Event.KeeperState.Closed);
    sim.runUntil(Sim.SEC);
    String root = "/agree-" + seed;
    ens.setup(root, new byte[0], CreateMode.PERSISTENT);
    return script(
        seed,
        new Client() {
          @Override
          public void create(
              String path, byte[] data, CreateMode mode, AsyncCallback.Create2Callback cb) {
            zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, mode, cb);
          }

          @Override
          public void delete(String path, int version, AsyncCallback.VoidCallback cb) {
            zk.delete(path, version, cb);
          }

          @Override
          public void setData(
              String path, byte[] data, int version, AsyncCallback.StatCallback cb) {
            zk.setData(path, data, version, cb);
          }

          @Override
          public void exists(String path, Watcher w, AsyncCallback.StatCallback cb) {
            zk.exists(path, w, cb);
          }

          @Override
          public void getData(String path, Watcher w, AsyncCallback.DataCallback cb) {
            zk.getData(path, w, cb);
          }

          @Override
          public void getChildren(String path, Watcher w, AsyncCallback.Children2Callback cb) {
            zk.getChildren(path, w, cb);
          }

          @Override
          public void multi(List<Op> ops, AsyncCallback.MultiCallback cb) {
            zk.multi(ops, cb);
          }

          @Override
          public void sync(String path, AsyncCallback.VoidCallback cb) {
            zk.sync(path, cb);
          }

          @Override
          public void settle(CompletableFuture<String> outcome) {
            sim.runUntil(sim.now() + 200 * Sim.MS);
          }

          @Override
          public void closeAndSettle() {
            zk.close();
            sim.runUntil(sim.now() + 2 * Sim.SEC);
            assertThat(closed[0]).as("told Closed").isTrue();
          }
        },
        root);
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
  void aScriptOfOneClient_isAnsweredAlike(long seed) throws Exception {
    assertThat(inTheSimulation(seed))
        .as("the simulation's answers and events, against a real server's (seed %d)", seed)
        .containsExactlyElementsOf(onTheServer(seed));
  }

  static WatchedEvent none() {
    return null;
  }
}
