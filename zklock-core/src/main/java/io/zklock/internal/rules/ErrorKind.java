package io.zklock.internal.rules;

import org.apache.zookeeper.KeeperException.Code;

/**
 * What the result code of a ZooKeeper request means for whoever sent it: the one table every caller
 * in zklock reads, so that no two places disagree about which errors are worth another try. A pure
 * function, tested case by case.
 *
 * <p>Callers handle the answers they expect first ({@code OK}, {@code NONODE}, {@code NODEEXISTS},
 * {@code BADVERSION}...); the kind then says what to do with the rest.
 */
public enum ErrorKind {
  /**
   * The request may not have reached the server, or its answer was lost, or the server ignored it;
   * the session may well be alive. Find out what happened (or send it again) once connected:
   *
   * <ul>
   *   <li>{@code CONNECTIONLOSS}: the connection failed with the request in flight; it may or may
   *       not have been applied;
   *   <li>{@code OPERATIONTIMEOUT}: the client gave up waiting for the answer; the same;
   *   <li>{@code SESSIONMOVED}: the session moved to another server (the client reconnected
   *       elsewhere) and the server that got the request ignored it; the session lives, and the
   *       server closes that connection.
   * </ul>
   */
  RETRY_WHEN_CONNECTED,

  /**
   * {@code SESSIONEXPIRED}: the session is over, and every ephemeral node of it with it. Nothing
   * sent on it will succeed; the session's own news (expired) ends what it held and queues its
   * waiting requests again on the next session.
   */
  SESSION_ENDED,

  /**
   * The server answered: success, or a refusal of its own ({@code NOAUTH}, {@code NONODE}, ...)
   * that sending the same request again would meet again. The caller handles it or reports it.
   */
  FINAL;

  /** The kind of {@code code}. */
  public static ErrorKind of(Code code) {
    switch (code) {
      case CONNECTIONLOSS:
      case OPERATIONTIMEOUT:
      case SESSIONMOVED:
        return RETRY_WHEN_CONNECTED;
      case SESSIONEXPIRED:
        return SESSION_ENDED;
      default:
        return FINAL;
    }
  }

  /** Whether {@code code} is {@link #RETRY_WHEN_CONNECTED}. */
  public static boolean retryWhenConnected(Code code) {
    return of(code) == RETRY_WHEN_CONNECTED;
  }

  /**
   * Whether {@code code} is not {@link #FINAL}: worth another try once connected, on this session
   * or the next one.
   */
  public static boolean retryable(Code code) {
    return of(code) != FINAL;
  }
}
