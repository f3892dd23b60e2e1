package io.zklock.internal;

import io.zklock.internal.engine.RequestContext;
import io.zklock.internal.inspect.Inspection;
import io.zklock.internal.rules.Json;
import io.zklock.internal.rules.NodeKind;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Writes a lock node's data: small UTF-8 JSON naming the owner (client name, host, pid, session,
 * kind), the recipe's extra fields, and the client's owner data if it has any. Fixed while held;
 * {@link Inspection} reads it back.
 *
 * @param ownerData the payload of {@code ZkLocks.Builder#ownerData}, or null
 */
record NodeDataWriter(String clientName, String host, long pid, String ownerData)
    implements RequestContext.NodeData {

  /** A writer for this process. */
  static NodeDataWriter forThisProcess(String clientName, String ownerData) {
    String h;
    try {
      h = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      h = "unknown";
    }
    return new NodeDataWriter(clientName, h, ProcessHandle.current().pid(), ownerData);
  }

  /** The field of an election node's data that holds the participant id. */
  public static final String PARTICIPANT_FIELD = "participant";

  @Override
  public byte[] of(NodeKind kind, long sessionId, Map<String, String> extra) {
    if (kind == NodeKind.CURATOR_LATCH) {
      // as Curator's LeaderLatch writes its node: the participant id alone, which its
      // getLeader() and getParticipants() read
      return extra.getOrDefault(PARTICIPANT_FIELD, "").getBytes(StandardCharsets.UTF_8);
    }
    StringBuilder json =
        new StringBuilder("{\"client\":")
            .append(Json.quote(clientName))
            .append(",\"host\":")
            .append(Json.quote(host))
            .append(",\"pid\":")
            .append(pid)
            .append(",\"session\":\"0x")
            .append(Long.toHexString(sessionId))
            .append("\",\"kind\":\"")
            .append(kind.label())
            .append('"');
    extra.forEach(
        (k, v) -> json.append(',').append(Json.quote(k)).append(':').append(Json.quote(v)));
    if (ownerData != null) {
      json.append(',').append(Json.quote(Inspection.OWNER_FIELD)).append(':');
      json.append(Json.quote(ownerData));
    }
    return json.append('}').toString().getBytes(StandardCharsets.UTF_8);
  }
}
