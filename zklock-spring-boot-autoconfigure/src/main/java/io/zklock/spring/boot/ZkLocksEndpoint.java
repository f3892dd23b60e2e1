package io.zklock.spring.boot;

import io.zklock.LocalLocks;
import io.zklock.LocalRequest;
import io.zklock.ZkLocks;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/zklock}: the application's own view of its locks, from {@link
 * ZkLocks#localLocks()}: the locks it holds and waits for, with wait and hold times and fencing
 * tokens, and its session's state (since when, and the server it is connected to) and negotiated
 * timeout; {@code heldMillis} counts from the grant, {@code waitedMillis} from the request. While
 * the session is not {@code CONNECTED}, a {@code held} request is what this process last knew. Read
 * from memory, without a request to ZooKeeper. Exposed like any endpoint ({@code
 * management.endpoints.web.exposure.include=zklock}); {@code zklock ui} shows every client's view.
 */
@Endpoint(id = "zklock")
public class ZkLocksEndpoint {
  private final ZkLocks locks;

  public ZkLocksEndpoint(ZkLocks locks) {
    this.locks = locks;
  }

  /** The view as JSON-friendly values (times in milliseconds). */
  @ReadOperation
  public Map<String, Object> locks() {
    LocalLocks view = locks.localLocks();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("clientName", view.clientName());
    out.put("namespace", view.namespace());
    out.put("sessionState", view.sessionState().name());
    out.put("sessionStateForMillis", view.sessionStateFor().toMillis());
    out.put("connectedServer", view.connectedServer());
    out.put("sessionId", "0x" + Long.toHexString(view.sessionId()));
    out.put("negotiatedSessionTimeoutMillis", view.negotiatedSessionTimeout().toMillis());
    out.put("held", view.held().size());
    out.put("waiting", view.waiting().size());
    List<Map<String, Object>> requests = new ArrayList<>();
    for (LocalRequest r : view.requests()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("lock", r.lockName());
      m.put("kind", r.kind().label());
      m.put("state", r.state().name().toLowerCase(Locale.ROOT));
      m.put("node", r.path());
      m.put("session", "0x" + Long.toHexString(r.sessionId()));
      m.put("token", r.fencingToken());
      m.put("waitedMillis", r.waited().toMillis());
      m.put("heldMillis", r.held().toMillis());
      m.put("releaseRequested", r.releaseRequested());
      requests.add(m);
    }
    out.put("requests", requests);
    return out;
  }
}
