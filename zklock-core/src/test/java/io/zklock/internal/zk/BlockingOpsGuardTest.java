package io.zklock.internal.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.zklock.ZkLockException;
import io.zklock.internal.engine.ErrorLog;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The blocking calls (the inspection API's reads, the namespace's creation) when zklock's code that
 * handles a reply throws on ZooKeeper's event thread, which catches and drops it: the blocked
 * caller hears a {@link ZkLockException} whose cause is the throwable, instead of waiting for ever.
 */
class BlockingOpsGuardTest {
  private final ExecutorService eventThread = Executors.newSingleThreadExecutor();
  private final List<Throwable> escaped = new CopyOnWriteArrayList<>();
  @RegisterExtension final ErrorLog log = new ErrorLog();

  @AfterEach
  void stop() {
    eventThread.shutdownNow();
  }

  @Test
  void replysHandlingThrows_theBlockingCallFails_insteadOfWaitingForEver() {
    // Given a listing whose reply's handling dies (the stat it copies cannot be read)
    StackOverflowError error = new StackOverflowError("deep");
    Stat unreadable =
        new Stat() {
          @Override
          public long getCzxid() {
            throw error;
          }
        };
    BlockingOps blocking = new BlockingOps(answeringListings(unreadable));

    // Then the blocked caller hears it (bounded only so that a regression fails, not hangs)
    assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        () ->
            assertThatThrownBy(() -> blocking.getChildren("/locks", new Stat()))
                .isInstanceOf(ZkLockException.class)
                .hasCause(error));
    assertThat(escaped).as("nothing escapes to ZooKeeper's event thread").isEmpty();
    log.assertLoggedOnceEach(error);
  }

  /**
   * Calls whose listings are answered OK with {@code stat} on an event thread of their own, which
   * catches what a callback throws as ZooKeeper's does; every other call is refused.
   */
  private ZkOps answeringListings(Stat stat) {
    return (ZkOps)
        Proxy.newProxyInstance(
            ZkOps.class.getClassLoader(),
            new Class<?>[] {ZkOps.class},
            (proxy, m, args) -> {
              if (!m.getName().equals("getChildren")) {
                throw new UnsupportedOperationException(m.getName());
              }
              String path = (String) args[0];
              AsyncCallback.Children2Callback cb = (AsyncCallback.Children2Callback) args[2];
              eventThread.execute(
                  () -> {
                    try {
                      cb.processResult(Code.OK.intValue(), path, null, List.of("a"), stat);
                    } catch (Throwable t) {
                      escaped.add(t);
                    }
                  });
              return null;
            });
  }
}
