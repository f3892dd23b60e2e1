package io.zklock.soak;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Fencing at a resource that is not ZooKeeper: a SQL table (H2, a real SQL engine, in memory)
 * guarded by a zklock mutex, with the pattern of docs/guarantees.md ("Fencing your resource"): the
 * row remembers the newest fencing token it has seen, and every statement of a holder is a
 * conditional {@code UPDATE ... WHERE fence <= :token}. Two holders: the older one is paused past
 * its session (its session expires while its thread is stopped before its write), the newer one is
 * granted and writes; then the older one wakes and writes, and the table refuses it.
 */
class SqlFencingTest {
  private static final AtomicInteger DB = new AtomicInteger();

  /** The new holder registers its token: from now on, nothing older is accepted. */
  static final String CLAIM = "UPDATE account SET fence = ? WHERE id = ? AND fence <= ?";

  /** A write: accepted only with a token not older than the newest the row has seen. */
  static final String WRITE =
      "UPDATE account SET balance = ?, fence = ? WHERE id = ? AND fence <= ?";

  private static EmbeddedZooKeeper server;
  private Connection db;
  private ZkLocks a;
  private ZkLocks b;

  @BeforeAll
  static void startServer() {
    server = EmbeddedZooKeeper.standalone().tickTime(Duration.ofMillis(100)).start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @BeforeEach
  void open() throws SQLException {
    db = DriverManager.getConnection("jdbc:h2:mem:fencing" + DB.incrementAndGet());
    try (Statement s = db.createStatement()) {
      s.execute(
          "CREATE TABLE account (id VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL,"
              + " fence BIGINT NOT NULL)");
      s.execute("INSERT INTO account VALUES ('42', 100, 0)");
    }
    a = client("holder-a");
    b = client("holder-b");
  }

  @AfterEach
  void close() throws SQLException {
    a.close();
    b.close();
    db.close();
  }

  private static ZkLocks client(String name) {
    return ZkLocks.builder(server.connectString())
        .namespace("/sql-fencing-" + DB.get())
        .clientName(name)
        .sessionTimeout(Duration.ofSeconds(10))
        .build();
  }

  /** Runs a fenced statement; true if the row accepted it. */
  private boolean update(String sql, long token, Long balance) throws SQLException {
    try (PreparedStatement p = db.prepareStatement(sql)) {
      int i = 1;
      if (balance != null) {
        p.setLong(i++, balance);
      }
      p.setLong(i++, token);
      p.setString(i++, "42");
      p.setLong(i, token);
      return p.executeUpdate() == 1;
    }
  }

  private long[] row() throws SQLException {
    try (Statement s = db.createStatement();
        ResultSet r = s.executeQuery("SELECT balance, fence FROM account WHERE id = '42'")) {
      r.next();
      return new long[] {r.getLong(1), r.getLong(2)};
    }
  }

  /**
   * Holder A takes the lock and pauses before its write; its session expires meanwhile (what a long
   * GC pause or a stopped VM does); B is granted. {@code whileAPaused} is what B does before A
   * wakes. Returns whether A's late write was accepted.
   */
  private boolean aWritesAfterPause(ThrowingConsumer<LockHandle> whileAPaused) throws Exception {
    LockHandle heldA = a.mutex("account/42").acquire();
    long tokenA = heldA.fencingToken();
    assertThat(update(CLAIM, tokenA, null)).as("A claims the row").isTrue();
    CountDownLatch resume = new CountDownLatch(1);
    CompletableFuture<Boolean> aWrote =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                resume.await(); // A's thread is stopped here: the "pause"
                return update(WRITE, tokenA, 50L); // A's stale decision: balance 100 -> 50
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });

    server.expireSession(a.sessionId()); // A's session runs out during the pause
    Optional<LockHandle> heldB = b.mutex("account/42").tryAcquire(Duration.ofSeconds(20));
    assertThat(heldB).as("B is granted once A's session is gone").isPresent();
    assertThat(heldB.get().fencingToken()).isGreaterThan(tokenA);
    whileAPaused.accept(heldB.get());

    resume.countDown(); // A wakes and writes, still believing it holds
    boolean accepted = aWrote.get(20, TimeUnit.SECONDS);
    LockLostException lost = heldA.lost().get(20, TimeUnit.SECONDS);
    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.SESSION_EXPIRED);
    heldB.get().release();
    return accepted;
  }

  @Test
  void olderHolderPausedPastItsSession_writesAfterTheNewer_rejected() throws Exception {
    boolean accepted =
        aWritesAfterPause(
            heldB ->
                assertThat(update(WRITE, heldB.fencingToken(), 120L))
                    .as("B's write, with the newer token")
                    .isTrue());

    assertThat(accepted).as("A's late write, with the older token").isFalse();
    assertThat(row()[0]).as("B's balance stands").isEqualTo(120L);
  }

  @Test
  void olderHolderPausedPastItsSession_newerClaimedOnly_rejected() throws Exception {
    // B has only claimed the row (its first statement after the grant), not written yet
    boolean accepted =
        aWritesAfterPause(heldB -> assertThat(update(CLAIM, heldB.fencingToken(), null)).isTrue());

    assertThat(accepted).isFalse();
    assertThat(row()[0]).as("unchanged by A").isEqualTo(100L);
  }

  @Test
  void withoutTheClaim_aStaleWriteBeforeTheNewerHoldersFirstStatementLands() throws Exception {
    // the limit the claim exists for: the row knows only tokens it has seen
    boolean accepted = aWritesAfterPause(heldB -> {});

    assertThat(accepted).as("the row had seen no newer token yet").isTrue();
    assertThat(update(WRITE, b.mutex("account/42").acquire().fencingToken(), 7L))
        .as("any later holder still overrides it")
        .isTrue();
  }

  @Test
  void sameHolder_writesAgainWithItsToken_accepted() throws Exception {
    try (LockHandle h = a.mutex("account/42").acquire()) {
      assertThat(update(CLAIM, h.fencingToken(), null)).isTrue();
      assertThat(update(WRITE, h.fencingToken(), 90L)).isTrue();
      assertThat(update(WRITE, h.fencingToken(), 80L)).isTrue();
    }
    assertThat(row()[0]).isEqualTo(80L);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                a.inspect("account/42").isEmpty()
                    || a.inspect("account/42").orElseThrow().holders().isEmpty());
  }

  @FunctionalInterface
  interface ThrowingConsumer<T> {
    void accept(T t) throws Exception;
  }
}
