package io.zklock.internal;

import io.zklock.LockEventListener;
import io.zklock.NodeAcl;
import io.zklock.SuspensionPolicy;
import io.zklock.TlsConfig;
import io.zklock.ZkLocks;
import io.zklock.internal.rules.Args;
import io.zklock.internal.zk.Batcher;
import io.zklock.internal.zk.Platform;
import io.zklock.internal.zk.SessionConfig;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The one class of the implementation that the API names: {@code ZkLocks.Builder} keeps its
 * settings here, each checked when it is set (a bad value fails at once, named), and {@link
 * #build()} connects. The defaults and the checks are documented on the builder.
 */
public final class ZkLocksFactory {
  private final String connectString;
  private String namespace = "/zklock";
  private Duration sessionTimeout = Duration.ofSeconds(15);
  private Duration connectTimeout = Duration.ofSeconds(10);
  private String clientName;
  private final List<SessionConfig.Auth> auth = new ArrayList<>();
  private NodeAcl acl;
  private boolean trustExistingAcl;
  private TlsConfig tls;
  private SuspensionPolicy suspensionPolicy = SuspensionPolicy.WAIT_FOR_EXPIRY;
  private String ownerData;
  private boolean connectInBackground;
  private boolean batching = Boolean.parseBoolean(System.getProperty(BATCHING_PROPERTY, "false"));
  private final List<LockEventListener> listeners = new ArrayList<>();

  /**
   * @throws IllegalArgumentException if the connect string is null, empty or malformed
   */
  public ZkLocksFactory(String connectString) {
    this.connectString = Args.connectString(connectString);
  }

  public void namespace(String namespace) {
    this.namespace = Args.namespace(namespace);
  }

  public void sessionTimeout(Duration timeout) {
    this.sessionTimeout = Args.positiveMillis(timeout, "sessionTimeout");
  }

  public void connectTimeout(Duration timeout) {
    this.connectTimeout = Args.positiveMillis(timeout, "connectTimeout");
  }

  public void clientName(String name) {
    this.clientName = Args.clientName(name);
  }

  /** One {@code addAuthInfo} credential; the builder has checked both. */
  public void authorization(String scheme, byte[] credentials) {
    auth.add(new SessionConfig.Auth(scheme, credentials.clone()));
  }

  public void acl(NodeAcl acl) {
    this.acl = acl;
  }

  public void trustExistingAcl() {
    this.trustExistingAcl = true;
  }

  public void tls(TlsConfig tls) {
    this.tls = tls;
  }

  public void suspensionPolicy(SuspensionPolicy policy) {
    this.suspensionPolicy = policy;
  }

  public void ownerData(String data) {
    this.ownerData = Args.ownerData(data);
  }

  public void eventListener(LockEventListener listener) {
    listeners.add(listener);
  }

  public void connectInBackground() {
    this.connectInBackground = true;
  }

  /** The system property that sets batching's default ({@code ZkLocks.Builder#batching}). */
  public static final String BATCHING_PROPERTY = "io.zklock.batching";

  public void batching(boolean on) {
    this.batching = on;
  }

  /** Packets in flight below which a request goes out at once (a tuning knob for measurements). */
  private static int batchAtOnceBelow() {
    return Integer.getInteger("io.zklock.batchAtOnceBelow", Batcher.AT_ONCE_BELOW);
  }

  /** Calls outstanding from which a call may be held for the next reply (a knob as above). */
  private static int batchHoldFrom() {
    return Integer.getInteger("io.zklock.batchHoldFrom", Batcher.HOLD_FROM);
  }

  /**
   * Connects (see {@code ZkLocks.Builder#build()}).
   *
   * @throws IllegalArgumentException if the ACL names the creator but no authorization is set
   */
  public ZkLocks build() {
    return build(Platform.SYSTEM);
  }

  /**
   * Connects on {@code platform}: its clock, threads and clients of the ensemble ({@link
   * Platform#SYSTEM} for {@link #build()}; a simulation gives its own).
   */
  public ZkLocks build(Platform platform) {
    NodeAcl effectiveAcl = acl;
    if (effectiveAcl == null) {
      effectiveAcl = auth.isEmpty() ? NodeAcl.open() : NodeAcl.creatorAllWorldRead();
    }
    if (effectiveAcl.needsAuthentication() && auth.isEmpty()) {
      throw new IllegalArgumentException(
          "ACL " + effectiveAcl + " names the creator: it needs authorization(...) too");
    }
    String name = clientName != null ? clientName : defaultClientName();
    SessionConfig config =
        new SessionConfig(
            connectString,
            namespace,
            sessionTimeout,
            connectTimeout,
            name,
            List.copyOf(auth),
            effectiveAcl,
            tls,
            suspensionPolicy,
            trustExistingAcl,
            connectInBackground,
            batching,
            batchAtOnceBelow(),
            batchHoldFrom());
    return ZkLocksImpl.connect(config, platform, ownerData, List.copyOf(listeners));
  }

  private static String defaultClientName() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "localhost";
    }
    return host + ":" + ProcessHandle.current().pid();
  }
}
