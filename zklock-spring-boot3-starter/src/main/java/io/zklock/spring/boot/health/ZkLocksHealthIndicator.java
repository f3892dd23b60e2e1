package io.zklock.spring.boot.health;

import io.zklock.SessionState;
import io.zklock.ZkLocks;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;

/**
 * The health of a {@link ZkLocks} session: UP when connected; DOWN when suspended (locks may still
 * be held, nothing new can be granted) or lost (expired, a new session is being established);
 * OUT_OF_SERVICE when closed. Details: state, session id, client name, namespace.
 */
public class ZkLocksHealthIndicator implements HealthIndicator {
  private final ZkLocks locks;

  public ZkLocksHealthIndicator(ZkLocks locks) {
    this.locks = locks;
  }

  @Override
  public Health health() {
    SessionState state = locks.sessionState();
    Status status;
    switch (state) {
      case CONNECTED:
        status = Status.UP;
        break;
      case SUSPENDED:
      case LOST:
        status = Status.DOWN;
        break;
      case CLOSED:
        status = Status.OUT_OF_SERVICE;
        break;
      default:
        throw new IllegalStateException("unknown session state " + state);
    }
    return Health.status(status)
        .withDetail("state", state.name())
        .withDetail("sessionId", "0x" + Long.toHexString(locks.sessionId()))
        .withDetail("clientName", locks.clientName())
        .withDetail("namespace", locks.namespace())
        .build();
  }
}
