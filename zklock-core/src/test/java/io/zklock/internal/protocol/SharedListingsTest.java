package io.zklock.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zklock.internal.rules.Listing;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.QueueNode;
import io.zklock.internal.zk.ZkOps;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;

/**
 * {@link SharedListings}: the pure rounds against a model (every member is listed exactly once, by
 * a round sent after it joined, at most one round in flight, no added wait when idle), then the
 * component on a fake connection that answers when told.
 */
class SharedListingsTest {

  // ---------------------------------------------------------------- the pure rounds

  @Provide
  Arbitrary<List<Boolean>> joinsAndReplies() {
    return Arbitraries.of(true, false).list().ofMinSize(1).ofMaxSize(300);
  }

  /**
   * {@code true}: a new member joins; {@code false}: the round in flight (if any) is answered. At
   * the end the rounds are answered until none is in flight.
   */
  @Property
  void rounds_listEveryMemberOnce_inARoundSentAfterItJoined_oneInFlight(
      @ForAll("joinsAndReplies") List<Boolean> events) {
    SharedListings.Rounds<Integer> rounds = new SharedListings.Rounds<>();
    Map<Integer, Integer> joinedAt = new HashMap<>(); // member -> time of its join
    Map<Integer, Integer> listedBy = new HashMap<>(); // member -> time its round was sent
    List<Integer> inFlight = null;
    int time = 0;
    int members = 0;
    int sent = 0;
    List<Boolean> all = new ArrayList<>(events);
    while (true) {
      boolean join;
      if (!all.isEmpty()) {
        join = all.remove(0);
      } else if (inFlight != null) {
        join = false;
      } else {
        break;
      }
      time++;
      if (join) {
        int m = members++;
        joinedAt.put(m, time);
        boolean wasIdle = inFlight == null;
        List<Integer> now = rounds.join(m);
        if (wasIdle) {
          assertThat(now)
              .as("a member joining while idle is sent at once, alone")
              .containsExactly(m);
          inFlight = now;
          sent++;
          listedBy.put(m, time);
        } else {
          assertThat(now).as("a member joining while a round is in flight waits").isNull();
        }
      } else if (inFlight != null) {
        List<Integer> next = rounds.replied();
        if (next == null) {
          assertThat(rounds.waiting()).isZero();
          inFlight = null;
        } else {
          assertThat(next).as("a round is never empty").isNotEmpty();
          for (int m : next) {
            assertThat(listedBy).as("member %d listed twice", m).doesNotContainKey(m);
            listedBy.put(m, time);
          }
          inFlight = next;
          sent++;
        }
      }
      assertThat(rounds.inFlight()).isEqualTo(inFlight != null);
    }
    assertThat(listedBy.keySet()).as("every member listed").hasSize(members);
    for (int m = 0; m < members; m++) {
      assertThat(listedBy.get(m))
          .as("member %d's round was sent after it joined", m)
          .isGreaterThanOrEqualTo(joinedAt.get(m));
    }
    assertThat(sent).isLessThanOrEqualTo(members);
  }

  /** A burst of members while one round is in flight costs one more round, whatever its size. */
  @Property
  void rounds_aBurstJoinsOneRound(@ForAll @IntRange(min = 1, max = 10_000) int burst) {
    SharedListings.Rounds<Integer> rounds = new SharedListings.Rounds<>();
    assertThat(rounds.join(-1)).containsExactly(-1);
    for (int i = 0; i < burst; i++) {
      assertThat(rounds.join(i)).isNull();
    }
    assertThat(rounds.replied()).hasSize(burst);
    assertThat(rounds.replied()).isNull();
    assertThat(rounds.inFlight()).isFalse();
  }

  @Test
  void rounds_replyWithNothingInFlight_isRejected() {
    assertThatThrownBy(() -> new SharedListings.Rounds<Integer>().replied())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no round in flight");
  }

  // ---------------------------------------------------------------- on a fake connection

  private static final String DIR = "/zklock/orders";

  @Test
  void idle_listsAtOnce_andLeavesNothingBehind() {
    SharedListings shared = new SharedListings();
    FakeOps ops = new FakeOps();
    List<Listing> seen = new ArrayList<>();
    shared.list(ops, DIR, (rc, l) -> seen.add(l));
    assertThat(ops.calls).as("sent at once: an uncontended request waits for nothing").hasSize(1);

    ops.answer(0, Code.OK, List.of(node(2), node(1)));
    assertThat(seen).hasSize(1);
    assertThat(seen.get(0)).extracting(QueueNode::sequence).containsExactly(1, 2);
    assertThat(shared.inFlight(ops, DIR)).as("no entry once idle").isFalse();
  }

  @Test
  void joinersWhileInFlight_shareOneListing_sentWhenTheFirstReturns() {
    SharedListings shared = new SharedListings();
    FakeOps ops = new FakeOps();
    List<Listing> seen = new ArrayList<>();
    shared.list(ops, DIR, (rc, l) -> seen.add(l));
    for (int i = 0; i < 100; i++) {
      shared.list(ops, DIR, (rc, l) -> seen.add(l));
    }
    assertThat(ops.calls).as("the others wait for the listing in flight").hasSize(1);

    ops.answer(0, Code.OK, List.of(node(1)));
    assertThat(ops.calls).as("the next round is sent when the first returns").hasSize(2);
    assertThat(seen).hasSize(1);

    ops.answer(1, Code.OK, List.of(node(1), node(2)));
    assertThat(seen).hasSize(101);
    Set<Listing> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Listing l : seen.subList(1, 101)) {
      distinct.add(l);
    }
    assertThat(distinct).as("one listing, parsed once, for the whole round").hasSize(1);
    assertThat(shared.inFlight(ops, DIR)).isFalse();
  }

  @Test
  void connectionsAndDirectories_doNotShare() {
    SharedListings shared = new SharedListings();
    FakeOps a = new FakeOps();
    FakeOps b = new FakeOps();
    shared.list(a, DIR, (rc, l) -> {});
    shared.list(b, DIR, (rc, l) -> {});
    shared.list(a, DIR + "x", (rc, l) -> {});
    assertThat(a.calls).hasSize(2);
    assertThat(b.calls).hasSize(1);
  }

  @Test
  void failedListing_reachesEveryMemberOfItsRound_andTheNextRoundStillGoes() {
    SharedListings shared = new SharedListings();
    FakeOps ops = new FakeOps();
    List<Integer> codes = new ArrayList<>();
    shared.list(ops, DIR, (rc, l) -> codes.add(rc));
    shared.list(ops, DIR, (rc, l) -> codes.add(rc));
    shared.list(ops, DIR, (rc, l) -> codes.add(rc));
    ops.answer(0, Code.CONNECTIONLOSS, null);
    ops.answer(1, Code.CONNECTIONLOSS, null);
    assertThat(codes)
        .containsExactly(
            Code.CONNECTIONLOSS.intValue(),
            Code.CONNECTIONLOSS.intValue(),
            Code.CONNECTIONLOSS.intValue());
    assertThat(shared.inFlight(ops, DIR)).isFalse();
  }

  @Test
  void listingFindsEachNodeByBinarySearch() {
    List<String> children = new ArrayList<>();
    for (int i = 500; i > 0; i--) {
      children.add(node(i));
    }
    children.add("x-lock");
    children.add("not-a-lock-node");
    Listing l = Listing.of(children);
    for (int i = 1; i <= 500; i++) {
      assertThat(QueueNode.indexOf(l, node(i))).isEqualTo(i - 1);
    }
    assertThat(QueueNode.indexOf(l, node(501))).isEqualTo(-1);
    assertThat(QueueNode.indexOf(l, "x-lock")).isEqualTo(-1);
  }

  private static String node(int seq) {
    String id = String.format("%012d", seq);
    return QueueNode.prefix(NodeKind.MUTEX, id) + String.format("%010d", seq);
  }

  /** Records getChildren calls and answers them when told, as ZooKeeper's event thread would. */
  private static final class FakeOps implements ZkOps {
    final List<AsyncCallback.Children2Callback> calls = new ArrayList<>();

    void answer(int call, Code code, List<String> children) {
      calls.get(call).processResult(code.intValue(), DIR, null, children, null);
    }

    @Override
    public void getChildren(String path, Watcher watcher, AsyncCallback.Children2Callback cb) {
      calls.add(cb);
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
