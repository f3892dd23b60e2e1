package io.zklock.internal.zk;

import io.zklock.NodeAcl;
import io.zklock.SuspensionPolicy;
import io.zklock.TlsConfig;
import java.time.Duration;
import java.util.List;

/**
 * Everything a {@link io.zklock.ZkLocks} was built with; validated by the builder. {@code
 * connectInBackground}: {@code build()} returns before the first connection ({@code
 * ZkLocks.Builder#connectInBackground()}). {@code batching}: the requests of the instance's threads
 * go out together while others are in flight ({@link Batcher}), a call going out at once while
 * fewer than {@code batchAtOnceBelow} requests are in flight or fewer than {@code batchHoldFrom}
 * calls are outstanding.
 */
public record SessionConfig(
    String connectString,
    String namespace,
    Duration sessionTimeout,
    Duration connectTimeout,
    String clientName,
    List<Auth> auth,
    NodeAcl acl,
    TlsConfig tls,
    SuspensionPolicy suspensionPolicy,
    boolean trustExistingAcl,
    boolean connectInBackground,
    boolean batching,
    int batchAtOnceBelow,
    int batchHoldFrom) {

  /** Without batching. */
  public SessionConfig(
      String connectString,
      String namespace,
      Duration sessionTimeout,
      Duration connectTimeout,
      String clientName,
      List<Auth> auth,
      NodeAcl acl,
      TlsConfig tls,
      SuspensionPolicy suspensionPolicy,
      boolean trustExistingAcl,
      boolean connectInBackground) {
    this(
        connectString,
        namespace,
        sessionTimeout,
        connectTimeout,
        clientName,
        auth,
        acl,
        tls,
        suspensionPolicy,
        trustExistingAcl,
        connectInBackground,
        false,
        Batcher.AT_ONCE_BELOW,
        Batcher.HOLD_FROM);
  }

  /**
   * Whether lock directories are checked before queueing: only for a client with an identity, and
   * unless it trusts existing ACLs.
   */
  public boolean guardsDirectories() {
    return !auth.isEmpty() && !trustExistingAcl;
  }

  /** One {@code addAuthInfo} credential. */
  public record Auth(String scheme, byte[] credentials) {}
}
