package io.zklock.internal.coord;

import static io.zklock.internal.engine.EngineFixture.NS;
import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.ZkLockException;
import io.zklock.internal.engine.EngineFixture;
import io.zklock.internal.engine.ErrorLog;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A throwable escaping zklock's code in a reply or watch of a coordination recipe's call (a latch,
 * a barrier, the semaphore's stored count), on the engine's {@code FakeZooKeeper}, whose deliveries
 * run as ZooKeeper's event thread runs them (a throwable caught, the next delivered). Without a
 * guard the call's future is never completed and its caller waits for ever; with it, the future
 * fails with a {@link ZkLockException} whose cause is the throwable, logged once at ERROR.
 */
class CoordCallbackFailureTest {
  private static final String PATH = NS + "/gate";

  private final EngineFixture f = new EngineFixture();

  private final CoordContext coord = FakeCoord.of(f);

  private final List<Throwable> escaped = new ArrayList<>();
  @RegisterExtension final ErrorLog log = new ErrorLog();

  @Test
  void callsCodeThrows_sendingItsRetry_failsTheCall() {
    // Given a create whose reply is a connection loss, and the code that answers it dying as it
    // sends the create again
    CompletableFuture<Code> created =
        new ZkCalls(coord).create(PATH, new byte[0], CreateMode.PERSISTENT);
    IllegalStateException bug = new IllegalStateException("a bug retrying the create");
    f.zk.failNextRequest(Code.CONNECTIONLOSS);
    f.zk.throwOnNextCall("create", bug);

    escaped.addAll(f.zk.deliverAllCatching());

    assertFailedWith(created, bug);
  }

  @Test
  void callsCodeThrows_makingAMissingParent_failsTheCall() {
    // Given a create into a directory that is missing, and the directories' code dying as it makes
    // it (called with the call's connection)
    OutOfMemoryError error = new OutOfMemoryError("no room for the directory");
    f.zk.throwOnNextCall("create", NS + "/missing", error);

    CompletableFuture<Code> created =
        new ZkCalls(coord).create(NS + "/missing/node", new byte[0], CreateMode.PERSISTENT);
    escaped.addAll(f.zk.deliverAllCatching());

    assertFailedWith(created, error);
  }

  @Test
  void nodeWatchsCodeThrows_onAnEvent_failsTheWait() {
    // Given a wait for a node to go, whose watch fires on a change of the node's data, and the
    // wait's code dying as it looks again
    f.zk.create(0L, PATH, new byte[0], CreateMode.PERSISTENT);
    CompletableFuture<Boolean> gone = NodeWatch.until(coord, PATH, false, -1L);
    escaped.addAll(f.zk.deliverAllCatching());
    assertThat(gone).as("waits while the node is there").isNotDone();
    StackOverflowError error = new StackOverflowError("deep");
    f.zk.throwOnNextCall("exists", error);

    // When the node's data changes
    f.zk.setData(PATH, "x".getBytes(StandardCharsets.UTF_8));
    escaped.addAll(f.zk.deliverAllCatching());

    // Then the wait fails instead of never ending
    assertFailedWith(gone, error);
  }

  private void assertFailedWith(CompletableFuture<?> done, Throwable cause) {
    assertThat(escaped).as("nothing escapes to ZooKeeper's event thread").isEmpty();
    assertThat(done).as("the caller hears the failure instead of waiting for ever").isDone();
    assertThat(done.handle((v, e) -> e).join())
        .isInstanceOf(ZkLockException.class)
        .hasCause(cause)
        .hasMessageContaining("zklock's code failed");
    log.assertLoggedOnceEach(cause);
  }
}
