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
 * @param clientName this instance's {@link ZkLocks#clientName()}
 * @param namespace this instance's {@link ZkLocks#namespace()}
 * @param sessionState the session's state when the snapshot was taken
 * @param sessionId the current session id, or 0 when closed or not yet connected
 * @param negotiatedSessionTimeout the session timeout the ensemble granted ({@link
 *     ZkLocks#negotiatedSessionTimeout()})
 * @param requests the requests pending or held, longest-waiting first
 */
public record LocalLocks(
    String clientName,
    String namespace,
    SessionState sessionState,
    long sessionId,
    Duration negotiatedSessionTimeout,
    List<LocalRequest> requests) {

  /** Checks that no component is null, and copies the list. */
  public LocalLocks {
    Objects.requireNonNull(clientName, "clientName");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(sessionState, "sessionState");
    Objects.requireNonNull(negotiatedSessionTimeout, "negotiatedSessionTimeout");
    requests = List.copyOf(requests);
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
