package io.zklock.internal.engine;

import static io.zklock.internal.engine.EngineFixture.DIR;
import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.GuardedTransaction;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ZkLockException;
import io.zklock.internal.engine.LockRequest.State;
import io.zklock.internal.protocol.NodeProtocol;
import io.zklock.internal.protocol.ProtocolContext;
import io.zklock.internal.protocol.QueueProtocol;
import io.zklock.internal.protocol.Step;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.zk.ZkOps;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A throwable escaping zklock's code in a reply or watch of a request (a bug, or an {@link Error}
 * such as {@link StackOverflowError}). ZooKeeper's client runs callbacks and watchers on its event
 * thread, which catches whatever they throw, logs it and goes on ({@code
 * ClientCnxn.EventThread.processEvent}); {@link #deliver()} does the same with the fake's
 * deliveries. Without a guard the request whose future that callback was to complete waits for
 * ever, its node left in the queue. With it, the request ends (its caller hears a {@link
 * ZkLockException} whose cause is the throwable, or, for a grant already handed out, {@code lost()}
 * completes with {@link LockLostException.Reason#INTERNAL_ERROR}), its node is deleted, and the
 * throwable is logged once at ERROR.
 */
class CallbackFailureEngineTest {
  private final EngineFixture f = new EngineFixture();
  private final FakeZooKeeper zk = f.zk;

  /** What escaped to the "event thread" (ZooKeeper's would log it and go on). */
  private final List<Throwable> escaped = new ArrayList<>();

  /** What these cases log on purpose, kept out of the build's output. */
  @RegisterExtension final ErrorLog log = new ErrorLog();

  /** Delivers everything, as ZooKeeper's event thread runs callbacks: a throwable is caught. */
  private void deliver() {
    escaped.addAll(zk.deliverAllCatching());
  }

  // ---------------------------------------------------------------- not granted

  @Test
  void orderingRuleThrows_onTheFirstListing_failsTheRequest_andDeletesItsNode() {
    // Given a request whose ordering rule throws on the listing behind its create (a bug)
    IllegalStateException bug = new IllegalStateException("a bug in the ordering rule");
    LockRequest r = queue((queue, index) -> throwIt(bug), x -> x);
    CompletableFuture<LockHandle> acquired = r.start();

    // When the create and the listing are answered
    deliver();

    // Then the caller hears the failure, nothing escaped, and no node is left
    assertFailedWith(acquired, bug);
    assertThat(r.state()).isEqualTo(State.WITHDRAWN);
    assertThat(f.nodes()).as("the request's node is deleted").isEmpty();
    assertThat(f.requests.size()).as("the request is no longer registered").isZero();
    assertLoggedOnce(bug);
  }

  @Test
  void stackOverflowError_inTheListing_failsTheRequest_andDeletesItsNode() {
    StackOverflowError error = new StackOverflowError("deep");
    LockRequest r = queue((queue, index) -> throwIt(error), x -> x);
    CompletableFuture<LockHandle> acquired = r.start();

    deliver();

    assertFailedWith(acquired, error);
    assertThat(f.nodes()).isEmpty();
    assertLoggedOnce(error);
  }

  @Test
  void createCallbackThrows_beforeTheNodeIsRecorded_deletesTheNodeByItsAttemptId() {
    // Given a create callback that dies after the node was made, before the engine heard of it
    IllegalStateException bug = new IllegalStateException("a bug after the create");
    LockRequest r = request(failing("created", true, bug), x -> x);
    CompletableFuture<LockHandle> acquired = r.start();

    deliver();

    // Then the node the create made is found by its attempt id and deleted
    assertFailedWith(acquired, bug);
    assertThat(f.nodes()).as("nothing orphaned").isEmpty();
    assertLoggedOnce(bug);
  }

  @Test
  void watcherThrows_whenThePredecessorGoes_failsTheWaiter_andDeletesItsNode() {
    // Given a waiter behind another client's holder, whose watch's handling throws
    String holder = f.otherQueues();
    IllegalStateException bug = new IllegalStateException("a bug in the watch");
    LockRequest r = request(failing("watch", true, bug), x -> x);
    CompletableFuture<LockHandle> acquired = r.start();
    deliver();
    assertThat(r.state()).isEqualTo(State.WAITING);

    // When the holder releases and the waiter's watch fires
    zk.delete(holder);
    deliver();

    // Then the waiter fails and its node is gone: the lock is not held by anyone unknowingly
    assertFailedWith(acquired, bug);
    assertThat(f.nodes()).isEmpty();
    assertLoggedOnce(bug);
  }

  // ---------------------------------------------------------------- granted

  @Test
  void grantHalfRecorded_theCallerHearsTheFailure_andTheNodeIsDeleted() {
    // Given a grant whose handle cannot be made (the recipe's view throws): the request is HELD
    // but its caller was never handed anything
    IllegalStateException bug = new IllegalStateException("a bug in the grant's view");
    LockRequest r = queue(Ordering.forKind(NodeKind.MUTEX), x -> throwIt(bug));
    CompletableFuture<LockHandle> acquired = r.start();

    deliver();

    assertFailedWith(acquired, bug);
    assertThat(r.state()).isEqualTo(State.RELEASED);
    assertThat(f.nodes()).as("the half-granted node is given back").isEmpty();
    assertLoggedOnce(bug);
  }

  @Test
  void callbackThrows_afterTheGrantWasHandedOut_theHolderIsToldLost_andTheNodeIsDeleted() {
    // Given a listing callback that dies right after its grant reached the caller
    IllegalStateException bug = new IllegalStateException("a bug after the grant");
    LockRequest r = request(failing("granted", false, bug), x -> x);
    CompletableFuture<LockHandle> acquired = r.start();

    deliver();

    // Then the holder, who has the handle, is told it lost the lock, and the node is gone
    assertThat(acquired).isCompleted();
    LockHandle h = acquired.join();
    assertThat(h.isHeld()).isFalse();
    assertThat(h.lost()).isCompleted();
    LockLostException lost = h.lost().join();
    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.INTERNAL_ERROR);
    assertThat(lost).hasCause(bug);
    assertThat(f.nodes()).isEmpty();
    assertLoggedOnce(bug);
  }

  // ---------------------------------------------------------------- around the request

  @Test
  void directoryCodeThrows_makingAMissingParent_failsTheRequest() {
    // Given a lock directory missing with its parent, and the directories' code dying as it makes
    // the parent (on the reply that found the directory's parent missing)
    zk.delete(DIR);
    zk.delete(EngineFixture.NS);
    IllegalStateException bug = new IllegalStateException("a bug making the directories");
    zk.throwOnNextCall("create", EngineFixture.NS, bug);
    LockRequest r = queue(Ordering.forKind(NodeKind.MUTEX), x -> x);
    CompletableFuture<LockHandle> acquired = r.start();

    deliver();

    // Then the request fails instead of waiting for a directory nobody makes
    assertFailedWith(acquired, bug);
    assertThat(r.state()).isEqualTo(State.WITHDRAWN);
    assertThat(f.requests.size()).as("the request is no longer registered").isZero();
    assertLoggedOnce(bug);
  }

  @Test
  void deletionsCodeThrows_onAReleasesRetry_theDeletionIsTriedOnceMore() {
    // Given a holder whose release's delete meets a connection loss, and the deleter's code dies
    // on that reply (as it sends its retry's read)
    LockRequest h = held();
    OutOfMemoryError error = new OutOfMemoryError("no room for the retry");
    zk.failNextRequest(Code.CONNECTIONLOSS);
    zk.throwOnNextCall("exists", error);

    // When it releases
    CompletableFuture<Void> released = h.releaseAsync();
    deliver();

    // Then the deletion is tried once more: the release completes, the node is gone
    assertThat(escaped).as("nothing escapes to ZooKeeper's event thread").isEmpty();
    assertThat(released).as("the release is answered").isCompletedWithValue(null);
    assertThat(f.nodes()).as("the node is deleted").isEmpty();
    assertLoggedOnce(error);
  }

  @Test
  void deletionsCodeThrowsTwice_theReleaseFails_andTheNextReleaseDeletesTheNode() {
    LockRequest h = held();
    IllegalStateException first = new IllegalStateException("a bug in the deleter");
    IllegalStateException second = new IllegalStateException("the same bug again");
    zk.failNextRequest(Code.CONNECTIONLOSS);
    zk.throwOnNextCall("exists", first);
    zk.throwOnNextCall("exists", second);

    CompletableFuture<Void> released = h.releaseAsync();
    deliver();

    // Then the release fails with the second throwable (not waiting for ever), each logged once
    assertThat(escaped).isEmpty();
    assertThat(released).isCompletedExceptionally();
    assertThat(released.handle((v, e) -> e).join())
        .isInstanceOf(ZkLockException.class)
        .hasCause(second);
    log.assertLoggedOnceEach(first, second);
    assertThat(f.nodes()).as("left to its session until the holder releases again").hasSize(1);

    // When the holder releases again, as after a delete the server refused
    CompletableFuture<Void> again = h.releaseAsync();
    deliver();

    assertThat(again).isCompletedWithValue(null);
    assertThat(f.nodes()).isEmpty();
  }

  @Test
  void batchedCallbackThrowsAnError_theOthersOfItsBatchAreStillAnswered() {
    // Given three listings of one client, batched: the first alone, the next two together
    EngineFixture g = EngineFixture.batched(1);
    ZkOps ops = g.session.current().ops();
    StackOverflowError error = new StackOverflowError("deep");
    List<String> answered = new ArrayList<>();
    ops.listChildren(DIR, (rc, p, c, children) -> answered.add("first"));
    ops.listChildren(DIR, (rc, p, c, children) -> throwIt(error));
    ops.listChildren(DIR, (rc, p, c, children) -> answered.add("third"));

    // When the batch of the last two is answered
    escaped.addAll(g.zk.deliverAllCatching());

    // Then the third hears its answer though the second's callback threw an Error before it
    assertThat(g.zk.multis()).as("the last two went in one read-only multi").hasSize(1);
    assertThat(answered).containsExactly("first", "third");
    assertThat(escaped).isEmpty();
    assertLoggedOnce(error);
  }

  @Test
  void guardedCommitsAnswerCannotBeHandedOn_theCommitFails() {
    // Given a holder's guarded transaction whose answer cannot be handed to the library's executor
    // (a thread that cannot be made: an Error)
    LockRequest h = held();
    OutOfMemoryError error = new OutOfMemoryError("unable to create native thread");
    Transaction tx =
        new Transaction(
            h,
            () -> {
              Guard real = h.guard();
              return new Guard(
                  real.paths(),
                  real.session(),
                  real.port(),
                  task -> throwIt(error),
                  real.acl(),
                  real.refusal());
            });

    // When it commits
    CompletableFuture<List<GuardedTransaction.Result>> out =
        tx.create(EngineFixture.NS + "/data", new byte[0]).commitAsync();
    deliver();

    // Then the commit fails with the Error as its cause, instead of never being answered
    assertThat(escaped).isEmpty();
    assertThat(out).isCompletedExceptionally();
    assertThat(out.handle((v, e) -> e).join()).isInstanceOf(ZkLockException.class).hasCause(error);
    assertLoggedOnce(error);
  }

  // ---------------------------------------------------------------- helpers

  /** A mutex held by a request of the fixture's client: its handle is the request. */
  private LockRequest held() {
    LockRequest r = queue(Ordering.forKind(NodeKind.MUTEX), x -> x);
    CompletableFuture<LockHandle> acquired = r.start();
    deliver();
    assertThat(acquired).as("granted").isCompleted();
    return r;
  }

  private static <T> T throwIt(Throwable t) {
    if (t instanceof RuntimeException e) {
      throw e;
    }
    throw (Error) t;
  }

  private LockRequest queue(Ordering.Rule rule, Function<LockRequest, LockHandle> view) {
    return request(new QueueProtocol(DIR, NodeKind.MUTEX, rule, Map.of()), view);
  }

  private LockRequest request(NodeProtocol protocol, Function<LockRequest, LockHandle> view) {
    return new LockRequest("orders", protocol, f.ctx, new Ticket(f.ctx, Waiting.FOREVER), view);
  }

  private void assertFailedWith(CompletableFuture<LockHandle> acquired, Throwable cause) {
    assertThat(acquired)
        .as("the caller hears the failure instead of waiting for ever")
        .isCompletedExceptionally();
    assertThat(escaped).as("nothing escapes to ZooKeeper's event thread").isEmpty();
    try {
      acquired.get();
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(ZkLockException.class).hasCause(cause);
      assertThat(e.getCause().getMessage()).contains("zklock's code failed");
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  private void assertLoggedOnce(Throwable t) {
    log.assertLoggedOnceEach(t);
  }

  /**
   * A mutex's queue protocol whose steps throw {@code t} in the report {@code method}: before the
   * report is made ({@code before}), or right after it. For {@code watch}, the throw comes when the
   * watch fires.
   */
  private static NodeProtocol failing(String method, boolean before, Throwable t) {
    QueueProtocol inner =
        new QueueProtocol(DIR, NodeKind.MUTEX, Ordering.forKind(NodeKind.MUTEX), Map.of());
    return new NodeProtocol() {
      @Override
      public String dir() {
        return inner.dir();
      }

      @Override
      public NodeKind kind() {
        return inner.kind();
      }

      @Override
      public void create(Step step) {
        inner.create(failing(step, method, before, t));
      }

      @Override
      public void recover(Step step) {
        inner.recover(step);
      }

      @Override
      public void judge(Step step) {
        inner.judge(step);
      }

      @Override
      public CompletableFuture<Void> deleteUnknown(
          ProtocolContext ctx, String attemptId, long session) {
        return inner.deleteUnknown(ctx, attemptId, session);
      }
    };
  }

  /** {@code step}, whose report {@code method} throws {@code t} (see {@link #failing}). */
  @SuppressWarnings("unchecked")
  private static Step failing(Step step, String method, boolean before, Throwable t) {
    return (Step)
        Proxy.newProxyInstance(
            Step.class.getClassLoader(),
            new Class<?>[] {Step.class},
            (proxy, m, args) -> {
              if (m.getName().equals(method) && method.equals("watch")) {
                BiConsumer<Step, WatchedEvent> onEvent = (BiConsumer<Step, WatchedEvent>) args[2];
                args[2] =
                    (BiConsumer<Step, WatchedEvent>)
                        (s, e) -> {
                          if (e.getType() != Watcher.Event.EventType.None) {
                            throwIt(t);
                          }
                          onEvent.accept(s, e);
                        };
              } else if (m.getName().equals(method) && before) {
                throwIt(t);
              }
              Object result;
              try {
                result = m.invoke(step, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
              if (m.getName().equals(method) && !before) {
                throwIt(t);
              }
              return result;
            });
  }
}
