package io.zklock.internal.zk;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.NodeAcl;
import io.zklock.SessionState;
import io.zklock.SuspensionPolicy;
import io.zklock.internal.engine.ManualScheduler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.function.BiConsumer;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.ClientInfo;
import org.junit.jupiter.api.Test;

/**
 * A handle that connects again just before zklock's deadline declares its session lost, the news of
 * the connection still on the session's executor when the declaration comes: that news must not
 * make the old connection the one a waiter for a connection is given. Once the session is over,
 * whoever waits for a connection waits for the next session's; given the old handle, a request
 * would create on it, be refused there (no create leaves the handle of an ended session), ask for a
 * connection again, be given the same one, without end.
 */
class ReconnectedThenDeclaredLostTest {
  private static final long T_MS = 2000;

  /** A client whose news and heartbeats the test delivers. */
  private static final class Client implements ZkClient {
    final long sessionId;
    final BiConsumer<ZkClient, KeeperState> news;
    final Queue<AsyncCallback.VoidCallback> syncs = new ArrayDeque<>();
    final List<String> creates = new ArrayList<>();
    final long began; // when its connect attempt began: at its opening
    boolean closed;

    Client(
        long sessionId, ManualScheduler.FakeClock clock, BiConsumer<ZkClient, KeeperState> news) {
      this.sessionId = sessionId;
      this.news = news;
      this.began = clock.nanoTime();
    }

    void tell(KeeperState s) {
      news.accept(this, s);
    }

    /** Answers the heartbeats sent so far. */
    void answerHeartbeats() {
      while (!syncs.isEmpty()) {
        syncs.poll().processResult(Code.OK.intValue(), "/", null);
      }
    }

    @Override
    public ZkOps ops() {
      return new ZkOps() {
        @Override
        public void create(
            String path,
            byte[] data,
            List<ACL> acl,
            CreateMode mode,
            AsyncCallback.Create2Callback cb) {
          creates.add(path);
        }

        @Override
        public void getChildren(String path, Watcher watcher, AsyncCallback.Children2Callback cb) {}

        @Override
        public void getData(String path, Watcher watcher, AsyncCallback.DataCallback cb) {}

        @Override
        public void exists(String path, Watcher watcher, AsyncCallback.StatCallback cb) {}

        @Override
        public void delete(String path, int version, AsyncCallback.VoidCallback cb) {}

        @Override
        public void getACL(String path, AsyncCallback.ACLCallback cb) {}

        @Override
        public void setData(String path, byte[] data, int version, AsyncCallback.StatCallback cb) {}

        @Override
        public void removeWatches(
            String path,
            Watcher watcher,
            Watcher.WatcherType type,
            AsyncCallback.VoidCallback cb) {}

        @Override
        public void removeAllWatches(
            String path, Watcher.WatcherType type, AsyncCallback.VoidCallback cb) {}

        @Override
        public void sync(String path, AsyncCallback.VoidCallback cb) {
          syncs.add(cb);
        }
      };
    }

    @Override
    public long sessionId() {
      return sessionId;
    }

    @Override
    public long connectBeganNanos() {
      return began;
    }

    @Override
    public int sessionTimeoutMillis() {
      return (int) T_MS;
    }

    @Override
    public List<ClientInfo> whoAmI() {
      return null;
    }

    @Override
    public boolean saslLogin() {
      return false;
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  private final ManualScheduler.FakeClock clock = new ManualScheduler.FakeClock();
  private final ManualScheduler scheduler = new ManualScheduler(clock);
  private final Queue<Runnable> events = new ArrayDeque<>(); // the session's serial executor
  private final List<Client> clients = new ArrayList<>();
  private final Session session =
      new Session(
          new SessionConfig(
              "fake:2181",
              "/zklock",
              Duration.ofMillis(T_MS),
              Duration.ofSeconds(10),
              "reconnected-then-declared-lost-test",
              List.of(),
              NodeAcl.open(),
              null,
              SuspensionPolicy.WAIT_FOR_EXPIRY,
              false,
              true),
          (config, sessionClock, news) -> {
            Client c = new Client(0x100L + clients.size(), clock, news);
            clients.add(c);
            return c;
          },
          events::add,
          scheduler,
          clock,
          (name, close) -> close.run());

  private void runEvents() {
    while (!events.isEmpty()) {
      events.poll().run();
    }
  }

  @Test
  void aConnectionWhoseNewsComesAfterTheSessionWasDeclaredLost_isGivenToNobody() {
    session.startInBackground();
    Client old = clients.get(0);
    old.tell(KeeperState.SyncConnected);
    runEvents();
    old.answerHeartbeats(); // arms the deadline
    // the connection drops; a request waits for it to come back
    old.tell(KeeperState.Disconnected);
    runEvents();
    List<Session.Conn> waitedThrough = new ArrayList<>();
    session.whenConnected(waitedThrough::add, () -> {});

    // When the handle connects again just as the deadline passes: the deadline's task runs before
    // the connection's news has left the session's executor
    old.tell(KeeperState.SyncConnected);
    scheduler.advance(Duration.ofMillis(T_MS));
    runEvents(); // the connection's news, then the loss's (which opens a new client)
    assertThat(session.state()).isEqualTo(SessionState.LOST);
    assertThat(clients).as("a new session is being opened").hasSize(2);

    // Then nobody is handed the old connection, neither the request that waited through the
    // suspension nor one that asks now
    List<Session.Conn> askedAfter = new ArrayList<>();
    session.whenConnected(askedAfter::add, () -> {});
    assertThat(askedAfter).as("a request asking once the session is over").isEmpty();
    assertThat(waitedThrough).as("the waiter of the suspension").isEmpty();

    // and both are given the next session's, once it connects
    Client next = clients.get(1);
    next.tell(KeeperState.SyncConnected);
    runEvents();
    assertThat(waitedThrough).extracting(Session.Conn::sessionId).containsExactly(next.sessionId);
    assertThat(askedAfter).extracting(Session.Conn::sessionId).containsExactly(next.sessionId);
  }
}
