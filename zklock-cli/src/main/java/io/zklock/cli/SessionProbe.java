package io.zklock.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which sessions have a connection to the ensemble now: ZooKeeper's {@code cons} command (a
 * four-letter word on the client port, plain TCP) asked of every server of the connect string.
 * ZooKeeper's client API tells nothing of other clients' sessions; this is how {@code zklock ui}
 * tells a holder whose process is gone (its session has no connection, and will expire) from a live
 * one, and an expiry from a release.
 *
 * <p>It answers only where every server answers: a server that refuses the connection has no
 * sessions (it is down); one that does not whitelist {@code cons} ({@code 4lw.commands.whitelist}),
 * that does not answer in time, or a secure (TLS) client port, leaves the answer unknown. A session
 * connected to a server the connect string does not name looks disconnected: name every server.
 */
final class SessionProbe {
  private static final Pattern SESSION =
      Pattern.compile("sid=0x([0-9a-fA-F]+)(?:[^)]*?,to=(\\d+))?");

  /**
   * One answer: the connected sessions with their negotiated timeouts (ms), or unknown with why.
   */
  record Answer(boolean known, Map<Long, Integer> sessions, String why) {
    static Answer unknown(String why) {
      return new Answer(false, Map.of(), why);
    }
  }

  private final List<InetSocketAddress> servers;
  private final String off; // why it cannot probe at all, or null
  private final int timeoutMillis;

  /**
   * @param connectString the view's connect string ({@code host:port,...[/chroot]})
   * @param tls whether the client port is secure (then nothing is probed)
   */
  SessionProbe(String connectString, boolean tls, int timeoutMillis) {
    this.timeoutMillis = timeoutMillis;
    this.servers = new ArrayList<>();
    String hosts = connectString;
    int slash = hosts.indexOf('/');
    if (slash >= 0) {
      hosts = hosts.substring(0, slash);
    }
    for (String hp : hosts.split(",")) {
      hp = hp.strip();
      if (hp.isEmpty()) {
        continue;
      }
      int colon = hp.lastIndexOf(':');
      String host = colon > 0 ? hp.substring(0, colon) : hp;
      int port = 2181;
      if (colon > 0) {
        try {
          port = Integer.parseInt(hp.substring(colon + 1));
        } catch (NumberFormatException e) {
          continue;
        }
      }
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      servers.add(InetSocketAddress.createUnresolved(host, port));
    }
    this.off =
        tls
            ? "the client port is secure (TLS): cons is not asked"
            : servers.isEmpty() ? "no server in the connect string" : null;
  }

  /** How many servers it asks. */
  int servers() {
    return servers.size();
  }

  /** Asks every server; blocks up to the timeout per server. */
  Answer ask() {
    if (off != null) {
      return Answer.unknown(off);
    }
    Map<Long, Integer> sessions = new HashMap<>();
    int answered = 0;
    for (InetSocketAddress s : servers) {
      String text;
      try {
        text = cons(new InetSocketAddress(s.getHostString(), s.getPort()));
      } catch (ConnectException refused) {
        continue; // down: none of the sessions is connected to it
      } catch (IOException e) {
        return Answer.unknown(s.getHostString() + ":" + s.getPort() + " did not answer cons");
      }
      if (!text.contains("sid=")
          && (text.contains("not in the whitelist") || text.contains("not executed"))) {
        return Answer.unknown(
            s.getHostString()
                + ":"
                + s.getPort()
                + " does not answer cons (add it to 4lw.commands.whitelist)");
      }
      answered++;
      parse(text, sessions);
    }
    if (answered == 0) {
      return Answer.unknown("no server answered");
    }
    return new Answer(true, Map.copyOf(sessions), "");
  }

  /** The sessions in a {@code cons} answer, with their timeouts where the answer gives them. */
  static void parse(String text, Map<Long, Integer> into) {
    for (String line : text.split("\n")) {
      Matcher m = SESSION.matcher(line);
      if (m.find()) {
        long sid = Long.parseUnsignedLong(m.group(1).toLowerCase(Locale.ROOT), 16);
        int to = m.group(2) == null ? 0 : Integer.parseInt(m.group(2));
        into.merge(sid, to, Math::max);
      }
    }
  }

  private String cons(InetSocketAddress address) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(address, timeoutMillis);
      socket.setSoTimeout(timeoutMillis);
      OutputStream out = socket.getOutputStream();
      out.write("cons".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      socket.shutdownOutput();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
