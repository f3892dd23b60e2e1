package io.zklock.cli;

import java.util.regex.Pattern;

/**
 * Checks a ZooKeeper connect string, {@code host:port[,host:port...][/chroot]}, before any
 * connection is tried, so that a malformed one is a usage error (exit 2) naming what is wrong, not
 * a host that cannot be found (exit 5). It accepts what ZooKeeper's own parser reads the same way:
 * entries separated by commas, spaces around an entry and empty entries ignored, a missing port
 * meaning 2181, an IPv6 address in brackets. The chroot is ZooKeeper's to check.
 */
final class ConnectString {
  /** A host name or an IPv4 address: letters, digits, dots, hyphens, underscores. */
  private static final Pattern HOST = Pattern.compile("[A-Za-z0-9._-]+");

  /** An IPv6 address as ZooKeeper reads it, in brackets. */
  private static final Pattern BRACKETED = Pattern.compile("\\[[0-9A-Fa-f:.%A-Za-z_-]+\\]");

  static final String FORM = "host:port[,host:port...][/chroot]";

  private ConnectString() {}

  /**
   * What is wrong with {@code connect}, or null if nothing is.
   *
   * @param connect the connect string as given
   * @return a message naming the problem, or null
   */
  static String problem(String connect) {
    if (connect == null || connect.isBlank()) {
      return "the connect string is empty; it is " + FORM;
    }
    int slash = connect.indexOf('/');
    String hosts = slash < 0 ? connect : connect.substring(0, slash);
    boolean any = false;
    for (String raw : hosts.split(",", -1)) {
      String entry = raw.strip();
      if (entry.isEmpty()) {
        continue;
      }
      any = true;
      String problem = entryProblem(entry);
      if (problem != null) {
        return "bad connect string '" + connect + "': " + problem + " (" + FORM + ")";
      }
    }
    if (!any) {
      return "bad connect string '" + connect + "': no host (" + FORM + ")";
    }
    return null;
  }

  private static String entryProblem(String entry) {
    String host;
    String port;
    if (entry.startsWith("[")) {
      int close = entry.indexOf(']');
      if (close < 0) {
        return "'" + entry + "' opens a bracket it does not close";
      }
      host = entry.substring(0, close + 1);
      String rest = entry.substring(close + 1);
      if (!rest.isEmpty() && !rest.startsWith(":")) {
        return "'" + entry + "' has '" + rest + "' after the address";
      }
      port = rest.isEmpty() ? "" : rest.substring(1);
      if (!BRACKETED.matcher(host).matches()) {
        return "'" + host + "' is not an IPv6 address";
      }
    } else {
      int colon = entry.indexOf(':');
      if (colon >= 0 && entry.indexOf(':', colon + 1) >= 0) {
        return "'"
            + entry
            + "' has more than one ':' (an IPv6 address goes in brackets: [::1]:2181)";
      }
      host = colon < 0 ? entry : entry.substring(0, colon);
      port = colon < 0 ? "" : entry.substring(colon + 1);
      if (!HOST.matcher(host).matches()) {
        return "'" + host + "' is not a host name or address";
      }
    }
    if (!port.isEmpty()) {
      if (!port.chars().allMatch(c -> c >= '0' && c <= '9') || port.length() > 5) {
        return "'" + port + "' is not a port number";
      }
      int p = Integer.parseInt(port);
      if (p < 1 || p > 65535) {
        return "port out of range: " + p + " (1 to 65535)";
      }
    }
    return null;
  }

  /**
   * Checks {@code connect}, throwing the usage error that names its problem.
   *
   * @param connect the connect string as given
   * @throws CliException with {@link ExitCodes#USAGE} if it is malformed
   */
  static void check(String connect) {
    String problem = problem(connect);
    if (problem != null) {
      throw new CliException(ExitCodes.USAGE, problem);
    }
  }
}
