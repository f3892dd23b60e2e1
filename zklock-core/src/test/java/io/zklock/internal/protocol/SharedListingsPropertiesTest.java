package io.zklock.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.internal.rules.Listing;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.QueueNode;
import io.zklock.internal.zk.ZkOps;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.data.ACL;

/**
 * The listing-sharing rule of {@link SharedListings} (issue 33): a listing may answer a request
 * only if it was sent on the request's own connection after the request sent its create (or
 * whatever else the listing must show). One ZooKeeper session applies its requests in the order
 * sent, so such a listing shows the request's node; an older listing (one in flight when the
 * request joined), or one of another connection, may not.
 *
 * <p>The pure part of the rule is {@link SharedListings.Rounds} (a member joins the round in flight
 * never, the next one always; see {@code SharedListingsTest}). This property checks the whole
 * component against what the rule is for: over random interleavings of creates, listings asked for,
 * again-listings of requests already queued and replies, on two connections to one tree, each
 * connection applying its requests in order, every request is answered exactly once per call, with
 * a listing that shows its node; at most one listing per connection is in flight; nothing is left
 * behind once every reply is in.
 */
class SharedListingsPropertiesTest {
  private static final String DIR = "/zklock/orders";

  /** One step of the world: a new request, a request listing again, or one reply delivered. */
  record Step(Kind kind, int conn, int pick) {
    enum Kind {
      CREATE_AND_LIST,
      LIST_AGAIN,
      DELIVER
    }
  }

  @Provide
  Arbitrary<List<Step>> worlds() {
    Arbitrary<Step> step =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(
                3,
                Arbitraries.integers()
                    .between(0, 1)
                    .map(c -> new Step(Step.Kind.CREATE_AND_LIST, c, 0))),
            net.jqwik.api.Tuple.of(
                2,
                Arbitraries.integers()
                    .between(0, 1000)
                    .map(p -> new Step(Step.Kind.LIST_AGAIN, 0, p))),
            net.jqwik.api.Tuple.of(
                5,
                Arbitraries.integers().between(0, 1).map(c -> new Step(Step.Kind.DELIVER, c, 0))));
    return step.list().ofMinSize(1).ofMaxSize(60);
  }

  @Property
  void everyRequestIsAnsweredOnce_byAListingSentAfterItsCreate_onItsConnection(
      @ForAll("worlds") List<Step> steps) {
    TreeSet<String> tree = new TreeSet<>(); // the directory's children, as applied
    Connection[] conns = {new Connection(0, tree), new Connection(1, tree)};
    SharedListings shared = new SharedListings();
    List<Request> requests = new ArrayList<>();

    for (Step s : steps) {
      switch (s.kind()) {
        case CREATE_AND_LIST -> {
          // as QueueProtocol#create: the create is sent, then the listing asked for
          Request r = new Request(requests.size(), conns[s.conn()]);
          requests.add(r);
          r.conn.sendCreate(r.node);
          r.list(shared);
        }
        case LIST_AGAIN -> {
          // a queued request judges again (a notification, a look-ahead): its node was created
          // before, so any listing sent from now on shows it
          if (!requests.isEmpty()) {
            requests.get(s.pick() % requests.size()).list(shared);
          }
        }
        case DELIVER -> conns[s.conn()].applyNext();
      }
      for (Connection c : conns) {
        assertThat(c.listingsInFlight())
            .as("listings of %s in flight on connection %d", DIR, c.id)
            .isLessThanOrEqualTo(1);
      }
    }
    // every reply comes in, in the connections' order
    boolean any = true;
    while (any) {
      any = false;
      for (Connection c : conns) {
        any |= c.applyNext();
      }
    }

    for (Request r : requests) {
      assertThat(r.wrongListings)
          .as("request %d was answered with a listing that does not show its node %s", r.id, r.node)
          .isEmpty();
      assertThat(r.answers)
          .as("request %d asked for %d listings", r.id, r.asked)
          .isEqualTo(r.asked);
    }
    for (Connection c : conns) {
      assertThat(shared.inFlight(c, DIR)).as("an idle connection leaves no entry").isFalse();
    }
  }

  /** A request of one connection: its node, and what it was answered. */
  private static final class Request {
    final int id;
    final Connection conn;
    final String node;
    int asked;
    int answers;
    final List<String> wrongListings = new ArrayList<>();

    Request(int id, Connection conn) {
      this.id = id;
      this.conn = conn;
      String attempt = String.format("%012d", id);
      this.node = QueueNode.prefix(NodeKind.MUTEX, attempt) + String.format("%010d", id);
    }

    void list(SharedListings shared) {
      asked++;
      shared.list(
          conn,
          DIR,
          (rc, listing) -> {
            answers++;
            if (rc != Code.OK.intValue() || QueueNode.indexOf(listing, node) < 0) {
              wrongListings.add(rc + ": " + (listing == null ? null : names(listing)));
            }
          });
    }

    private static List<String> names(Listing l) {
      List<String> out = new ArrayList<>();
      l.forEach(n -> out.add(n.name()));
      return out;
    }
  }

  /**
   * One connection (session) to a shared tree: requests wait in the order sent and are applied, and
   * answered, one at a time when the test says, as a ZooKeeper session's are.
   */
  private static final class Connection implements ZkOps {
    final int id;
    final TreeSet<String> tree;
    final Deque<Runnable> pending = new ArrayDeque<>();
    int listings;

    Connection(int id, TreeSet<String> tree) {
      this.id = id;
      this.tree = tree;
    }

    void sendCreate(String node) {
      pending.add(() -> tree.add(node));
    }

    int listingsInFlight() {
      return listings;
    }

    boolean applyNext() {
      Runnable r = pending.poll();
      if (r == null) {
        return false;
      }
      r.run();
      return true;
    }

    @Override
    public void getChildren(String path, Watcher watcher, AsyncCallback.Children2Callback cb) {
      listings++;
      pending.add(
          () -> {
            listings--;
            cb.processResult(Code.OK.intValue(), path, null, new ArrayList<>(tree), null);
          });
    }

    @Override
    public void create(
        String path,
        byte[] data,
        List<ACL> acl,
        CreateMode mode,
        AsyncCallback.Create2Callback cb) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void getData(String path, Watcher watcher, AsyncCallback.DataCallback cb) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void exists(String path, Watcher watcher, AsyncCallback.StatCallback cb) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void delete(String path, int version, AsyncCallback.VoidCallback cb) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void getACL(String path, AsyncCallback.ACLCallback cb) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void setData(String path, byte[] data, int version, AsyncCallback.StatCallback cb) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void removeWatches(
        String path, Watcher watcher, WatcherType type, AsyncCallback.VoidCallback cb) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void removeAllWatches(String path, WatcherType type, AsyncCallback.VoidCallback cb) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void sync(String path, AsyncCallback.VoidCallback cb) {
      throw new UnsupportedOperationException();
    }
  }
}
