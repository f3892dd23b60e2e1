package io.zklock.internal.zk;

import io.zklock.TlsConfig;
import io.zklock.internal.rules.Clock;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.apache.zookeeper.common.ClientX509Util;
import org.apache.zookeeper.common.X509Exception;

/**
 * Finds out why no server answers: ZooKeeper's client retries quietly and keeps the cause of each
 * failed attempt to itself (an unknown host, a refused connection, a TLS handshake that failed).
 * Beside the client's first connection ({@link #beside}) this probe does by hand what the client
 * does, one server at a time, and names what went wrong: the host does not resolve; the connection
 * is refused or not answered; the TLS key or trust store cannot be loaded (a wrong password); the
 * TLS handshake fails (an untrusted certificate, a plain port); a plain client reaches a port that
 * speaks TLS. When every server failed in a way that retrying cannot mend, the connect fails at
 * once instead of at the end of the connect timeout.
 */
final class ConnectProbe {
  /** How long the client's first connection may take before the probe looks (the usual case). */
  static final long QUIET_MILLIS = 100;

  /**
   * What the probe found: a message naming the cause, the exception behind it, and whether the
   * cause is certain to persist (a host that does not resolve, a refused connection, a TLS
   * mismatch), as opposed to a server that did not answer yet.
   */
  record Finding(String message, Throwable cause, boolean certain) {
    Finding(String message, Throwable cause) {
      this(message, cause, true);
    }
  }

  private ConnectProbe() {}

  /**
   * Probes the servers beside the client's first connection, on a daemon thread: waits {@link
   * #QUIET_MILLIS} for {@code connected}, then probes every server once, bounding its own waits by
   * {@code deadlineNanos} (of {@link Clock#SYSTEM}). If every server failed for certain it counts
   * {@code connected} down, so that the caller waiting on it fails at once.
   *
   * @return the finding (null when connected in the quiet time, or when every server looks
   *     reachable)
   */
  static CompletableFuture<Finding> beside(
      SessionConfig config, CountDownLatch connected, long deadlineNanos) {
    CompletableFuture<Finding> result = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try {
                if (connected.await(QUIET_MILLIS, TimeUnit.MILLISECONDS)) {
                  result.complete(null);
                  return;
                }
                // the servers are probed at once, each wait ending by the deadline (a first TLS
                // handshake on a loaded machine can take seconds); if one is late, the caller
                // fails at the deadline without its finding
                long leftMillis = (deadlineNanos - Clock.SYSTEM.nanoTime()) / 1_000_000;
                int timeoutMs = (int) Math.max(100, Math.min(Integer.MAX_VALUE, leftMillis));
                Finding f = diagnose(config, timeoutMs);
                result.complete(f);
                if (f != null && f.certain()) {
                  connected.countDown();
                }
              } catch (InterruptedException e) {
                result.complete(null);
              } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
              }
            },
            "zklock-connect-probe");
    t.setDaemon(true);
    t.start();
    return result;
  }

  private static String[] hostPorts(SessionConfig config) {
    String hosts = config.connectString();
    int slash = hosts.indexOf('/');
    if (slash >= 0) {
      hosts = hosts.substring(0, slash);
    }
    return hosts.split(",");
  }

  /**
   * Probes every server of {@code config}'s connect string, each with {@code timeoutMs} to connect
   * and to hear an answer.
   *
   * @return the causes found, one per failing server ({@link Finding#certain() certain} when every
   *     server failed for certain), or null if every server looks reachable (the cause is then
   *     elsewhere: a server that accepts connections but serves no session, for example one without
   *     a quorum)
   */
  static Finding diagnose(SessionConfig config, int timeoutMs) {
    TlsConfig tls = config.tls();
    SSLContext context = null;
    if (tls != null) {
      try (ClientX509Util x509 = new ClientX509Util()) {
        context = x509.createSSLContext(LiveZk.clientConfig(tls));
      } catch (Exception e) {
        String store;
        if (has(e, X509Exception.KeyManagerException.class)) {
          store = "key store " + tls.keyStore();
        } else if (has(e, X509Exception.TrustManagerException.class)) {
          store = "trust store " + tls.trustStore();
        } else {
          store = "key store " + tls.keyStore() + " or trust store " + tls.trustStore();
        }
        return new Finding(
            "cannot load the TLS "
                + store
                + " (a wrong password or a damaged file?): "
                + rootMessage(e),
            e);
      }
    }
    String[] hostPorts = hostPorts(config);
    List<CompletableFuture<Finding>> probes = new ArrayList<>();
    for (String hostPort : hostPorts) {
      SSLContext tlsContext = context;
      CompletableFuture<Finding> f = new CompletableFuture<>();
      Thread t =
          new Thread(
              () -> {
                try {
                  f.complete(probe(hostPort.trim(), tlsContext, timeoutMs));
                } catch (RuntimeException | Error e) {
                  f.completeExceptionally(e);
                }
              },
              "zklock-connect-probe-" + hostPort.trim());
      t.setDaemon(true);
      t.start();
      probes.add(f);
    }
    List<Finding> found = new ArrayList<>();
    for (CompletableFuture<Finding> p : probes) {
      Finding f = p.join();
      if (f != null) {
        found.add(f);
      }
    }
    if (found.isEmpty()) {
      return null;
    }
    StringBuilder message = new StringBuilder();
    Throwable cause = found.get(0).cause();
    boolean certain = found.size() == hostPorts.length;
    for (Finding f : found) {
      if (message.length() > 0) {
        message.append("; ");
      }
      message.append(f.message());
      certain &= f.certain();
      if (f.cause() != cause && f.cause() != null) {
        cause.addSuppressed(f.cause());
      }
    }
    return new Finding(message.toString(), cause, certain);
  }

  private static Finding probe(String hostPort, SSLContext tls, int timeoutMs) {
    int colon = hostPort.lastIndexOf(':');
    String host = colon > 0 ? hostPort.substring(0, colon) : hostPort;
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = colon > 0 ? Integer.parseInt(hostPort.substring(colon + 1)) : 2181;
    } catch (NumberFormatException e) {
      return new Finding("'" + hostPort + "' has no valid port", e);
    }
    InetAddress[] addresses;
    try {
      addresses = InetAddress.getAllByName(host);
    } catch (UnknownHostException e) {
      return new Finding("unknown host '" + host + "' (it does not resolve)", e);
    }
    Finding last = null;
    boolean certain = true;
    for (InetAddress address : addresses) {
      InetSocketAddress target = new InetSocketAddress(address, port);
      Finding f = probe(hostPort, target, tls, timeoutMs);
      if (f == null) {
        return null; // this address works; the client would have found it
      }
      certain &= f.certain();
      last = f;
    }
    return last == null ? null : new Finding(last.message(), last.cause(), certain);
  }

  private static Finding probe(
      String name, InetSocketAddress target, SSLContext tls, int timeoutMs) {
    try (Socket socket = new Socket()) {
      socket.connect(target, timeoutMs);
      socket.setSoTimeout(timeoutMs);
      if (tls != null) {
        return handshake(name, socket, tls);
      }
      return speaksTls(name, target, timeoutMs);
    } catch (ConnectException e) {
      return new Finding(
          "connection refused by " + name + " (" + target + "): nothing listens there", e);
    } catch (SocketTimeoutException e) {
      return new Finding(
          "no answer from " + name + " (" + target + ") within " + timeoutMs + " ms", e, false);
    } catch (IOException e) {
      return new Finding("cannot connect to " + name + " (" + target + "): " + e, e, false);
    }
  }

  /** The TLS handshake ZooKeeper's client makes, with the same context; null if it succeeds. */
  private static Finding handshake(String name, Socket plain, SSLContext tls) {
    try (SSLSocket socket =
        (SSLSocket)
            tls.getSocketFactory()
                .createSocket(
                    plain, plain.getInetAddress().getHostAddress(), plain.getPort(), true)) {
      socket.setUseClientMode(true);
      socket.startHandshake();
      try {
        // TLS 1.3: a server that rejects the client's certificate says so after the handshake,
        // at once; a server that accepts it waits for the client's first request
        socket.setSoTimeout(Math.min(plain.getSoTimeout(), 2000));
        if (socket.getInputStream().read() < 0) {
          return new Finding(
              "the server at "
                  + name
                  + " closed the TLS connection after the handshake"
                  + " (does it require a client certificate the key store lacks?)",
              new SSLException("closed by " + name + " after the TLS handshake"));
        }
      } catch (SocketTimeoutException quiet) {
        return null; // the server waits for the client's first request: TLS works
      }
      return null;
    } catch (SSLException e) {
      String why;
      if (has(e, CertPathBuilderException.class)
          || has(e, CertPathValidatorException.class)
          || has(e, CertificateException.class)) {
        why = "the server's certificate is not trusted (or does not name the host)";
      } else if (String.valueOf(e.getMessage()).contains("certificate_required")
          || String.valueOf(e.getMessage()).contains("bad_certificate")) {
        why = "the server rejected the client's certificate";
      } else {
        why = "is it a TLS port?";
      }
      return new Finding("TLS handshake with " + name + " failed: " + why + ": " + e, e);
    } catch (IOException e) {
      return new Finding(
          "TLS handshake with " + name + " failed (is it a TLS port?): " + e, e, false);
    }
  }

  /**
   * Whether the server at {@code target} answers a TLS handshake: a plain client on a TLS port is
   * closed by the server at its first bytes, and ZooKeeper's client only says that no server
   * answered.
   */
  private static Finding speaksTls(String name, InetSocketAddress target, int timeoutMs) {
    boolean[] sawCertificate = new boolean[1];
    TrustManager recordAll =
        new X509TrustManager() {
          @Override
          public void checkClientTrusted(X509Certificate[] chain, String authType) {
            throw new UnsupportedOperationException("client side only");
          }

          @Override
          public void checkServerTrusted(X509Certificate[] chain, String authType) {
            sawCertificate[0] = true; // trusted or not, it speaks TLS: that is all we ask
          }

          @Override
          public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
          }
        };
    try (Socket socket = new Socket()) {
      SSLContext any = SSLContext.getInstance("TLS");
      any.init(null, new TrustManager[] {recordAll}, null);
      socket.connect(target, timeoutMs);
      socket.setSoTimeout(timeoutMs);
      try (SSLSocket ssl =
          (SSLSocket)
              any.getSocketFactory()
                  .createSocket(socket, target.getHostString(), target.getPort(), true)) {
        ssl.setUseClientMode(true);
        ssl.startHandshake();
      }
    } catch (IOException | java.security.GeneralSecurityException e) {
      if (!sawCertificate[0]) {
        return null; // not TLS: the plain client was right to speak plain
      }
    }
    if (sawCertificate[0]) {
      return new Finding(
          name
              + " speaks TLS (a secure client port) but the client connects without TLS;"
              + " configure ZkLocks.Builder#tls",
          new SSLException("the server at " + name + " presented a TLS certificate"));
    }
    return null;
  }

  private static boolean has(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + t + ")";
  }
}
