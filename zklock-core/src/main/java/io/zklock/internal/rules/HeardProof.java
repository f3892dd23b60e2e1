package io.zklock.internal.rules;

import java.util.Arrays;

/**
 * What the answered heartbeats of one session prove about the ensemble's leader: the latest
 * instant, on the client's clock, no later than which the leader is known to have heard from the
 * session ({@link #provenAt()}). The leader expires a session T after it last heard from it
 * (rounded up to its next tick), so zklock's deadline counts from this instant ({@link
 * SessionDeadline#dueNanos}). Immutable; the I/O stays in the session.
 *
 * <p><b>Why an answer alone proves nothing at the leader.</b> Only the leader expires sessions, and
 * only three things tell it that a session is alive: the session's creation, its revalidation when
 * the client connects again ({@code REVALIDATE}, which a follower asks of the leader before it
 * answers the connect), and a learner's answer to the leader's ping, which carries the sessions the
 * learner heard from since its previous answer. A request a follower forwards to the leader (a
 * {@code sync}, a write) is handed to the leader's request pipeline without touching the session.
 * So a heartbeat answered through a follower that is cut off from the leader right after, before
 * the leader's next ping, leaves the leader's news of the session older than that heartbeat.
 *
 * <p><b>The rule.</b> Heartbeat j (sent at s<sub>j</sub>, answered at r<sub>j</sub>) reached its
 * server F within [s<sub>j</sub>, r<sub>j</sub>]. It is proven reported once a later heartbeat k,
 * answered on the <em>same connection</em>, was sent at s<sub>k</sub> ≥ r<sub>j</sub> + {@link
 * SessionDeadline#reportNanos P}, where P bounds the leader's ping period (half a tick) plus the
 * time a ping takes to reach F. The leader pinged F within P after F heard j, so the ping reached F
 * before k did; F answered it (with the session in its answer) before it forwarded k, on the one
 * ordered stream to the leader; the leader reads that stream in order, so it touched the session
 * before it could answer k. Had the link broken, k would never have been answered. Then the leader
 * heard from the session no earlier than s<sub>j</sub>. A heartbeat answered on another connection
 * (another server, or the same one again: F drops its clients when it loses its leader) proves
 * nothing about the previous connection's: its answers still waiting for proof are dropped. A
 * connection of the session made again proves its own start: the leader revalidated (touched) the
 * session after the attempt began. Connected to the leader itself every heartbeat touches at once;
 * the rule is merely conservative there.
 */
public final class HeardProof {
  /** At most this many answers wait for proof; beyond, the oldest are forgotten (conservative). */
  static final int MAX_PENDING = 32;

  private final long provenAt;
  private final long connection;
  private final long[] sent; // answers on connection still waiting for proof, oldest first
  private final long[] answered;

  private HeardProof(long provenAt, long connection, long[] sent, long[] answered) {
    this.provenAt = provenAt;
    this.connection = connection;
    this.sent = sent;
    this.answered = answered;
  }

  /**
   * A new session, made by the leader no earlier than {@code began} (when the connect attempt that
   * made it began), on the connection numbered {@code connection}.
   */
  public static HeardProof madeAt(long began, long connection) {
    return new HeardProof(began, connection, new long[0], new long[0]);
  }

  /** The latest instant no later than which the leader is known to have heard from the session. */
  public long provenAt() {
    return provenAt;
  }

  /** How many answered heartbeats still wait for proof (tests). */
  int pending() {
    return sent.length;
  }

  /**
   * The session's handle connected again (the same session), on connection {@code connection},
   * through an attempt that began at {@code began}: the leader revalidated the session after that,
   * so {@code began} is proven; what waited for proof on the previous connection never will be.
   */
  public HeardProof reconnected(long connection, long began) {
    return new HeardProof(Math.max(provenAt, began), connection, new long[0], new long[0]);
  }

  /**
   * The connection changed (numbered {@code connection}) without proving anything by itself (a
   * disconnection, or a connection that did not ask the leader): what waited for proof is dropped.
   */
  public HeardProof moved(long connection) {
    if (connection == this.connection && sent.length == 0) {
      return this;
    }
    return new HeardProof(provenAt, connection, new long[0], new long[0]);
  }

  /**
   * A heartbeat sent at {@code sentAt} was answered at {@code answeredAt} on connection {@code
   * connection}. Earlier answers on the same connection answered at least {@link
   * SessionDeadline#reportNanos} before {@code sentAt} are proven; this one waits for its own
   * proof.
   *
   * @param timeoutNanos the negotiated session timeout T
   */
  public HeardProof answered(long connection, long sentAt, long answeredAt, long timeoutNanos) {
    if (answeredAt - sentAt < 0) {
      throw new IllegalArgumentException(
          "answered at " + answeredAt + " before it was sent at " + sentAt);
    }
    long[] s = connection == this.connection ? sent : new long[0];
    long[] a = connection == this.connection ? answered : new long[0];
    long proven = provenAt;
    long report = SessionDeadline.reportNanos(timeoutNanos);
    int n = s.length;
    long[] keepS = new long[n + 1];
    long[] keepA = new long[n + 1];
    int kept = 0;
    for (int i = 0; i < n; i++) {
      if (sentAt - a[i] >= report) {
        if (s[i] - proven > 0) {
          proven = s[i];
        }
      } else {
        keepS[kept] = s[i];
        keepA[kept] = a[i];
        kept++;
      }
    }
    keepS[kept] = sentAt;
    keepA[kept] = answeredAt;
    kept++;
    // what was sent no later than the proven instant can prove nothing newer
    int from = 0;
    long[] outS = new long[kept];
    long[] outA = new long[kept];
    int m = 0;
    for (int i = 0; i < kept; i++) {
      if (keepS[i] - proven > 0) {
        outS[m] = keepS[i];
        outA[m] = keepA[i];
        m++;
      }
    }
    if (m > MAX_PENDING) {
      from = m - MAX_PENDING;
    }
    return new HeardProof(
        proven, connection, Arrays.copyOfRange(outS, from, m), Arrays.copyOfRange(outA, from, m));
  }

  @Override
  public String toString() {
    return "HeardProof[provenAt="
        + provenAt
        + ", connection="
        + connection
        + ", pending="
        + sent.length
        + "]";
  }
}
