package io.zklock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

/** Free loopback ports. Never hands out the same port twice in one JVM. */
final class Ports {
  static final String LOOPBACK = "127.0.0.1";
  private static final Set<Integer> handedOut = new HashSet<>();

  private Ports() {}

  static synchronized int free() {
    for (int attempt = 0; attempt < 100; attempt++) {
      try (ServerSocket s = new ServerSocket()) {
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getByName(LOOPBACK), 0));
        int port = s.getLocalPort();
        if (handedOut.add(port)) {
          return port;
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot find a free port on " + LOOPBACK, e);
      }
    }
    throw new IllegalStateException("no free port on " + LOOPBACK + " after 100 attempts");
  }
}
