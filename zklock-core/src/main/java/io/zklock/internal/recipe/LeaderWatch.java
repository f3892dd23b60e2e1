package io.zklock.internal.recipe;

import io.zklock.Leader;
import io.zklock.LeaderObserver;
import io.zklock.LockNode;
import io.zklock.internal.inspect.Inspection;
import io.zklock.internal.rules.ErrorKind;
import io.zklock.internal.rules.Json;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.QueueNode;
import io.zklock.internal.zk.Session;
import io.zklock.internal.zk.SessionPort;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches who leads an election and tells {@link LeaderObserver}s, without polling: it reads the
 * head of the election's queue and sets a watch on that one node (the head changes only when its
 * node goes: new nodes queue behind it), or, while nobody takes part, a watch on the directory's
 * children (or on the directory itself while it does not exist). Every watch and every reconnection
 * leads to one fresh read; reads run one at a time, so reports are never reordered, and a report is
 * made only when the head's node differs from the last one reported.
 *
 * <p>A term shorter than the time of one read (a leader gone before its node was read) may be
 * skipped; epochs reported only rise, except that a participant that rejoins gets a new, greater
 * one.
 */
final class LeaderWatch {
  private static final Logger log = LoggerFactory.getLogger(LeaderWatch.class);

  private final SessionPort session;
  private final Consumer<Session.Observer> follow;
  private final Consumer<Session.Observer> unfollow;
  private final String name;
  private final String dir;
  private final NodeKind kind; // the participants' kind
  private final Executor events;
  private final List<LeaderObserver> observers = new CopyOnWriteArrayList<>();
  private final Watcher watcher =
      e -> {
        if (e.getType() != Watcher.Event.EventType.None) {
          refresh();
        }
      };
  private final Session.Observer sessionObserver =
      new Session.Observer() {
        @Override
        public void connected(Session.Conn conn) {
          refresh(); // watches may have fired unseen, or died with an expired session
        }

        @Override
        public void suspended(Session.Conn conn) {}

        @Override
        public void expired(Session.Conn expired) {}

        @Override
        public void closed() {
          stop();
        }
      };

  // guarded by this
  private boolean running;
  private int generation; // a new one per start(): reads of an earlier run report nothing
  private boolean reading;
  private boolean again;
  private Optional<Leader> last; // null until the first report of this run

  /**
   * @param session the session, through the seam the engine uses
   * @param follow adds an observer of the session's connections ({@code Session.addObserver})
   * @param unfollow removes it ({@code Session.removeObserver})
   * @param events the serial executor observers are called on
   */
  LeaderWatch(
      SessionPort session,
      Consumer<Session.Observer> follow,
      Consumer<Session.Observer> unfollow,
      String name,
      String dir,
      Executor events,
      NodeKind kind) {
    this.kind = kind;
    this.session = session;
    this.follow = follow;
    this.unfollow = unfollow;
    this.name = name;
    this.dir = dir;
    this.events = events;
  }

  /** Adds an observer; it hears the last leader read, if any, at once (on the executor). */
  synchronized void add(LeaderObserver o) {
    observers.add(o);
    if (running && last != null) {
      Optional<Leader> now = last;
      events.execute(() -> tell(o, now));
    }
  }

  /** Removes an observer; returns whether none is left. */
  synchronized boolean remove(LeaderObserver o) {
    observers.remove(o);
    return observers.isEmpty();
  }

  synchronized boolean hasObservers() {
    return !observers.isEmpty();
  }

  /** Starts watching. Idempotent. */
  void start() {
    synchronized (this) {
      if (running) {
        return;
      }
      running = true;
      generation++;
      last = null;
    }
    follow.accept(sessionObserver);
    refresh();
  }

  /** Stops watching: no more reports (watches already set fire once more, and are ignored). */
  void stop() {
    synchronized (this) {
      if (!running) {
        return;
      }
      running = false;
      generation++;
    }
    unfollow.accept(sessionObserver);
  }

  /** Reads the head again, now or once the read in progress is done. */
  private void refresh() {
    int g;
    synchronized (this) {
      if (!running) {
        return;
      }
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      g = generation;
    }
    session.whenConnected(c -> list(g, c, false), () -> done(g, false));
  }

  private void done(int g, boolean retry) {
    boolean more;
    synchronized (this) {
      reading = false;
      more = (again || retry) && running && g == generation;
      again = false;
      if (g != generation && running) {
        more = true; // a new run started while this read was under way
      }
    }
    if (more) {
      refresh();
    }
  }

  /** Lists the directory; with {@code watch}, sets a watch on its children too. */
  private void list(int g, Session.Conn c, boolean watch) {
    c.ops()
        .getChildren(
            dir,
            watch ? watcher : null,
            (rc, path, x, children, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.NONODE) {
                watchDir(g, c);
              } else if (code != Code.OK) {
                failed(g, code);
              } else {
                List<QueueNode> q = QueueNode.queue(children);
                q.removeIf(n -> n.kind() != kind);
                if (q.isEmpty()) {
                  if (watch) {
                    report(g, Optional.empty());
                    done(g, false);
                  } else {
                    list(g, c, true); // nobody: hear when somebody joins
                  }
                } else if (QueueNode.nearOverflow(q)) {
                  headByCreation(g, c, q);
                } else {
                  readHead(g, c, q.get(0).name());
                }
              }
            });
  }

  /** The directory does not exist: watch for its creation. */
  private void watchDir(int g, Session.Conn c) {
    c.ops()
        .exists(
            dir,
            watcher,
            (rc, path, x, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.OK) {
                list(g, c, false); // made meanwhile
              } else if (code == Code.NONODE) {
                report(g, Optional.empty());
                done(g, false);
              } else {
                failed(g, code);
              }
            });
  }

  /** Near the sequence counter's overflow the head is the node created first. */
  private void headByCreation(int g, Session.Conn c, List<QueueNode> q) {
    List<QueueNode> found = new ArrayList<>();
    AtomicInteger left = new AtomicInteger(q.size());
    Code[] bad = new Code[1];
    for (QueueNode n : q) {
      c.ops()
          .exists(
              dir + "/" + n.name(),
              null,
              (rc, path, x, stat) -> {
                Code code = Code.get(rc);
                synchronized (found) {
                  if (code == Code.OK) {
                    found.add(n.withCzxid(stat.getCzxid()));
                  } else if (code != Code.NONODE) {
                    bad[0] = code;
                  }
                }
                if (left.decrementAndGet() == 0) {
                  if (bad[0] != null) {
                    failed(g, bad[0]);
                  } else if (found.isEmpty()) {
                    list(g, c, false);
                  } else {
                    found.sort(QueueNode.BY_CREATION);
                    readHead(g, c, found.get(0).name());
                  }
                }
              });
    }
  }

  /** Reads the head's node and watches it: it goes when leadership changes hands. */
  private void readHead(int g, Session.Conn c, String head) {
    String path = dir + "/" + head;
    c.ops()
        .getData(
            path,
            watcher,
            (rc, p, x, data, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.NONODE) {
                list(g, c, false); // gone between the two reads: look again
              } else if (code != Code.OK) {
                failed(g, code);
              } else {
                java.util.Map<String, String> fields =
                    data == null || data.length == 0
                        ? java.util.Map.of()
                        : kind.curator() || kind.kazoo() && data[0] != '{'
                            ? java.util.Map.of(
                                io.zklock.internal.inspect.Inspector.CURATOR_FIELD,
                                new String(data, StandardCharsets.UTF_8))
                            : Json.parseObject(new String(data, StandardCharsets.UTF_8));
                LockNode node =
                    Inspection.node(
                        new Inspection.Read(
                            head,
                            path,
                            stat.getCzxid(),
                            stat.getCtime(),
                            stat.getEphemeralOwner(),
                            stat.getVersion(),
                            fields),
                        kind,
                        LockNode.State.HOLDING);
                String id = QueueNode.participantOf(kind, data);
                if (id == null) {
                  id = "";
                }
                report(g, Optional.of(new Leader(id, stat.getCzxid(), node)));
                done(g, false);
              }
            });
  }

  private void failed(int g, Code code) {
    if (ErrorKind.retryable(code)) {
      done(g, true); // read again once connected
      return;
    }
    log.warn("leader election {}: cannot watch the leader: {}", dir, code);
    done(g, false);
  }

  private void report(int g, Optional<Leader> now) {
    synchronized (this) {
      if (!running || g != generation || same(last, now)) {
        return;
      }
      last = now;
      List<LeaderObserver> to = List.copyOf(observers);
      events.execute(
          () -> {
            for (LeaderObserver o : to) {
              tell(o, now);
            }
          });
    }
  }

  private static boolean same(Optional<Leader> a, Optional<Leader> b) {
    if (a == null) {
      return false;
    }
    if (a.isEmpty() || b.isEmpty()) {
      return a.isEmpty() && b.isEmpty();
    }
    return a.get().epoch() == b.get().epoch()
        && a.get().node().path().equals(b.get().node().path());
  }

  private void tell(LeaderObserver o, Optional<Leader> now) {
    try {
      o.leaderChanged(now);
    } catch (RuntimeException ex) {
      log.warn("leader observer {} of {} threw; ignored", o, name, ex);
    }
  }
}
