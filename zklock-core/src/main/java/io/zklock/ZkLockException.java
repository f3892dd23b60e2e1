package io.zklock;

/**
 * The root of zklock's unchecked exceptions: something went wrong talking to ZooKeeper, or a lock
 * could not be acquired for a reason other than a timeout (which {@code tryAcquire} reports as an
 * empty result) or an interruption (which is reported as {@link InterruptedException}).
 *
 * <p>Where it is known, the exception carries the lock's path and the ZooKeeper session id, so a
 * log line says which lock and which session.
 */
public class ZkLockException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String path;
  private final long sessionId;

  /** An error concerning no particular lock or session. */
  public ZkLockException(String message) {
    this(message, null, 0L, null);
  }

  /** An error with its cause, concerning no particular lock or session. */
  public ZkLockException(String message, Throwable cause) {
    this(message, null, 0L, cause);
  }

  /**
   * An error concerning the lock at {@code path} (or null) and session {@code sessionId} (or 0).
   */
  public ZkLockException(String message, String path, long sessionId, Throwable cause) {
    super(decorate(message, path, sessionId), cause);
    this.path = path;
    this.sessionId = sessionId;
  }

  /**
   * The znode path of the lock concerned, or {@code null} when the error concerns no single lock.
   */
  public String path() {
    return path;
  }

  /** The ZooKeeper session id concerned, or 0 when there was none. */
  public long sessionId() {
    return sessionId;
  }

  static String decorate(String message, String path, long sessionId) {
    StringBuilder sb = new StringBuilder(message);
    if (path != null) {
      sb.append(" [lock ").append(path);
    }
    if (sessionId != 0L) {
      sb.append(path != null ? ", " : " [")
          .append("session 0x")
          .append(Long.toHexString(sessionId));
    }
    if (path != null || sessionId != 0L) {
      sb.append(']');
    }
    return sb.toString();
  }
}
