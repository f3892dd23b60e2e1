package io.zklock.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sends ZooKeeper's four-letter-word commands ({@code mntr}, {@code srvr}, {@code ruok}, ...) over
 * plain TCP. Works with any server that whitelists the command ({@code 4lw.commands.whitelist});
 * the servers of this test kit whitelist all of them.
 *
 * <p>Names of the watch-count metrics in {@code mntr} (ZooKeeper 3.9, summaries of the watchers
 * triggered per event): {@code zk_node_created_watch_count_sum}, {@code
 * zk_node_deleted_watch_count_sum}, {@code zk_node_changed_watch_count_sum}, {@code
 * zk_node_children_watch_count_sum} (each also with {@code _cnt}, {@code _avg}, {@code _min},
 * {@code _max}). See {@link #watchEventsTriggered(Map)}.
 */
public final class FourLetterWords {
  /** The {@code mntr} keys that sum the watch events the server has triggered, per event type. */
  public static final List<String> WATCH_COUNT_SUMS =
      List.of(
          "zk_sum_node_created_watch_count",
          "zk_sum_node_deleted_watch_count",
          "zk_sum_node_changed_watch_count",
          "zk_sum_node_children_watch_count");

  private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  private FourLetterWords() {}

  /**
   * Sends {@code command} to {@code host:port} and returns the whole answer.
   *
   * @param timeout connect and read timeout; a server that does not answer in time (for example a
   *     paused process) makes this throw
   * @throws UncheckedIOException if the server cannot be reached or does not answer in time
   */
  public static String send(String host, int port, String command, Duration timeout) {
    int millis = (int) Math.max(1, timeout.toMillis());
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), millis);
      socket.setSoTimeout(millis);
      socket.getOutputStream().write(command.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      socket.shutdownOutput();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toString(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "four-letter word '" + command + "' to " + host + ":" + port + " failed", e);
    }
  }

  /** {@link #send(String, int, String, Duration)} with a 5 second timeout. */
  public static String send(String host, int port, String command) {
    return send(host, port, command, DEFAULT_TIMEOUT);
  }

  /**
   * Reads {@code mntr} and returns its key/value pairs in the server's order (keys like {@code
   * zk_server_state}, {@code zk_znode_count}).
   */
  public static Map<String, String> mntr(String host, int port, Duration timeout) {
    return parse(send(host, port, "mntr", timeout));
  }

  /** {@link #mntr(String, int, Duration)} with a 5 second timeout. */
  public static Map<String, String> mntr(String host, int port) {
    return mntr(host, port, DEFAULT_TIMEOUT);
  }

  /**
   * The total number of watch events the server has triggered (created + deleted + changed +
   * children), from a {@code mntr} answer. Take the difference of two readings to count the events
   * of one scenario. ZooKeeper's metrics are per JVM: in-process servers in one JVM share them.
   */
  public static long watchEventsTriggered(Map<String, String> mntr) {
    long total = 0;
    for (String key : WATCH_COUNT_SUMS) {
      String value = mntr.get(key);
      if (value != null) {
        total += (long) Double.parseDouble(value.trim());
      }
    }
    return total;
  }

  static Map<String, String> parse(String answer) {
    Map<String, String> map = new LinkedHashMap<>();
    for (String line : answer.split("\n")) {
      int tab = line.indexOf('\t');
      if (tab > 0) {
        map.put(line.substring(0, tab).trim(), line.substring(tab + 1).trim());
      }
    }
    if (map.isEmpty() && !answer.isBlank()) {
      throw new IllegalStateException("not an mntr answer (is mntr whitelisted?): " + answer);
    }
    return Collections.unmodifiableMap(map);
  }
}
