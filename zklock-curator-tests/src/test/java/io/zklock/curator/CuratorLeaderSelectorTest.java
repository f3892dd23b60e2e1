package io.zklock.curator;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.LockOptions;
import io.zklock.ZkLocks;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.junit.jupiter.api.Test;

/**
 * Curator 5.9's {@link LeaderSelector} and zklock's compatible mutex on the same path. A {@code
 * LeaderSelector} is an {@code InterProcessMutex} on its leader path whose node data is the
 * selector's id: it leads for as long as its {@code takeLeadership} runs. Its nodes are Curator's
 * mutex nodes ({@code _c_<uuid>-lock-<sequence>}), so a zklock client holding the compatible mutex
 * for the length of its task takes its turn in the same queue. zklock's compatible
 * <em>election</em> names its nodes as {@code LeaderLatch} does ({@code -latch-}), which a selector
 * does not order with its own: the two do not share a path (docs/migrating-from-curator.md).
 */
class CuratorLeaderSelectorTest extends CuratorTestBase {
  private static final LockOptions COMPAT = LockOptions.curatorCompatible();
  private static final long SECONDS = WAIT.toSeconds();

  /** A started selector whose leadership lasts until {@link #stepDown()}, entering the checker. */
  private static final class Selector extends LeaderSelectorListenerAdapter {
    final String id;
    final CuratorClient client;
    final LeaderSelector selector;
    final CountDownLatch leads = new CountDownLatch(1);
    private final CountDownLatch stepDown = new CountDownLatch(1);
    private final FencingChecker checker;

    Selector(CuratorClient c, String name, FencingChecker checker) {
      this.id = c.name;
      this.client = c;
      this.checker = checker;
      this.selector = new LeaderSelector(c.framework, "/" + name, this);
      selector.setId(id);
      selector.start();
    }

    @Override
    public void takeLeadership(CuratorFramework client) throws Exception {
      checker.enter(id, -1);
      leads.countDown();
      try {
        stepDown.await();
      } finally {
        checker.exit(id);
      }
    }

    boolean awaitLeads() throws InterruptedException {
      return leads.await(SECONDS, TimeUnit.SECONDS);
    }

    void stepDown() {
      stepDown.countDown();
    }
  }

  private Selector selector(String who, String name, FencingChecker checker) throws Exception {
    Selector s = new Selector(curator(who), name, checker);
    addCloseable(s.selector::close);
    return s;
  }

  /** A zklock waiter for the compatible mutex that, once granted, enters and leaves the checker. */
  private CompletableFuture<Void> zklockTurn(String who, String name, FencingChecker checker) {
    DistributedLock lock = zklock(who).mutex(name, COMPAT);
    return lock.acquireAsync()
        .thenAccept(
            h -> {
              checker.enter(who, h.fencingToken());
              checker.exit(who);
              h.release();
            });
  }

  @Test
  void leadershipAndTheCompatibleMutex_passInOneQueue_inArrivalOrder() throws Exception {
    // Given a selector leading, then queued: a zklock mutex waiter, a selector, a zklock waiter
    String name = newName("selector");
    FencingChecker checker = new FencingChecker();
    Selector s1 = selector("s1", name, checker);
    assertThat(s1.awaitLeads()).isTrue();
    CuratorClient reader = curator("reader");
    CompletableFuture<Void> z2 = zklockTurn("z2", name, checker);
    awaitChildren(reader, name, 2);
    Selector s3 = selector("s3", name, checker);
    awaitChildren(reader, name, 3);
    CompletableFuture<Void> z4 = zklockTurn("z4", name, checker);
    awaitChildren(reader, name, 4);

    // Then both libraries see the selector as the holder, and name it by its id
    assertThat(s3.selector.getLeader().getId()).isEqualTo("s1");
    LockInfo info = zklock("inspector").inspect(name).orElseThrow();
    assertThat(info.kind()).isEqualTo(LockInfo.Kind.MUTEX);
    assertThat(info.holders())
        .extracting(LockNode::kind)
        .containsExactly(LockNode.Kind.CURATOR_MUTEX);
    assertThat(info.holders()).extracting(LockNode::ownerData).containsExactly("s1");
    assertThat(info.waiters())
        .extracting(LockNode::clientName)
        .containsExactly("z2", "(curator)", "z4");

    // When the leader steps down, the zklock waiter holds next
    s1.stepDown();
    z2.get(SECONDS, TimeUnit.SECONDS);

    // then the second selector leads, and z4 waits until it steps down
    assertThat(s3.awaitLeads()).isTrue();
    assertThat(z4).isNotDone();
    s3.stepDown();
    z4.get(SECONDS, TimeUnit.SECONDS);
    assertThat(checker.problems()).as("overlaps or tokens out of order").isEmpty();
    assertThat(checker.entries()).containsExactly("s1", "z2", "s3", "z4");
    awaitChildren(reader, name, 0);
  }

  @Test
  void selectorLeaderExpires_zklockWaiterBehindIsGranted() throws Exception {
    // Given a selector leading and a zklock mutex waiter behind it
    String name = newName("selector-expires");
    Selector s1 = selector("s1", name, new FencingChecker());
    assertThat(s1.awaitLeads()).isTrue();
    CompletableFuture<LockHandle> waiter = zklock("z").mutex(name, COMPAT).acquireAsync();
    CuratorClient reader = curator("reader");
    awaitChildren(reader, name, 2);
    assertThat(waiter).isNotDone();

    // When the selector's session expires
    server.expireSession(s1.client.sessionId());

    // Then the zklock waiter holds, with a token
    holdsWithTokenThenReleases(waiter);
    s1.stepDown();
  }

  @Test
  void zklockHolderExpires_lossIsTold_andSelectorBehindLeads() throws Exception {
    // Given a zklock client holding the compatible mutex and a selector behind it
    String name = newName("selector-zklock-expires");
    ZkLocks z = zklock("z");
    LockHandle h = z.mutex(name, COMPAT).acquire();
    Selector s = selector("s", name, new FencingChecker());
    CuratorClient reader = curator("reader");
    awaitChildren(reader, name, 2);

    // When the zklock holder's session expires
    server.expireSession(z.sessionId());

    // Then it is told of its loss, and the selector leads
    assertThat(h.lost().get(SECONDS, TimeUnit.SECONDS)).isNotNull();
    assertThat(s.awaitLeads()).isTrue();
    assertThat(s.selector.getParticipants()).extracting(p -> p.getId()).containsExactly("s");
    s.stepDown();
    awaitChildren(reader, name, 0);
  }
}
