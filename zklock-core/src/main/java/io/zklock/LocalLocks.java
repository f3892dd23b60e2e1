package io.zklock;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The application's own view of its locks, returned by {@link ZkLocks#localLocks()}: what this
 * instance holds and waits for, and the state of its session. Taken from memory, without a request
 * to ZooKeeper, so it is cheap enough for a health page or a metrics scrape. A snapshot: it does
 * not change when the locks do.
 *
 * <p>Each request is listed on its own: a read-write lock's downgrade or a multi-lock shows its
 * parts, a semaphore its leases. Requests that share one node of a cohort lock are listed by that
 * node's request (see {@link LockOptions#cohort()}).
 *
 * <p>While the session is not {@link SessionState#CONNECTED}, a request shown {@link
 * LocalRequest.State#HELD} is what this process last knew: {@link SessionState#SUSPENDED}, the lock
 * may still be held or already lost, which the ensemble decides; {@link SessionState#LOST}, it is
 * being told lost.
 *
 * @param clientName this instance's {@link ZkLocks#clientName()}
 * @param namespace this instance's {@link ZkLocks#namespace()}
 * @param sessionState the session's state when the snapshot was taken
 * @param sessionId the current session id, or 0 when closed or not yet connected
 * @param negotiatedSessionTimeout the session timeout the ensemble granted ({@link
 *     ZkLocks#negotiatedSessionTimeout()})
 * @param requests the requests pending or held, longest-waiting first
 * @param sessionStateFor how long the session has been in {@code sessionState}: since its last
 *     transition (by this process's monotonic clock), or since the instance was built while it has
 *     not connected yet
 * @param connectedServer the server the session is connected to, {@code host:port} (the address the
 *     client connected to), or empty when the session is not {@link SessionState#CONNECTED}
 */
public record LocalLocks(
    String clientName,
    String namespace,
    SessionState sessionState,
    long sessionId,
    Duration negotiatedSessionTimeout,
    List<LocalRequest> requests,
    Duration sessionStateFor,
    String connectedServer) {

  /** Checks that no component is null, and copies the list. */
  public LocalLocks {
    Objects.requireNonNull(clientName, "clientName");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(sessionState, "sessionState");
    Objects.requireNonNull(negotiatedSessionTimeout, "negotiatedSessionTimeout");
    Objects.requireNonNull(sessionStateFor, "sessionStateFor");
    Objects.requireNonNull(connectedServer, "connectedServer");
    requests = List.copyOf(requests);
  }

  /**
   * A snapshot that does not say since when the session is in its state, nor its server: {@link
   * #sessionStateFor()} zero, {@link #connectedServer()} empty.
   */
  public LocalLocks(
      String clientName,
      String namespace,
      SessionState sessionState,
      long sessionId,
      Duration negotiatedSessionTimeout,
      List<LocalRequest> requests) {
    this(
        clientName,
        namespace,
        sessionState,
        sessionId,
        negotiatedSessionTimeout,
        requests,
        Duration.ZERO,
        "");
  }

  /** The requests that hold their lock. */
  public List<LocalRequest> held() {
    return requests.stream().filter(r -> r.state() == LocalRequest.State.HELD).toList();
  }

  /** The requests that wait for their lock. */
  public List<LocalRequest> waiting() {
    return requests.stream().filter(r -> r.state() == LocalRequest.State.WAITING).toList();
  }
}
