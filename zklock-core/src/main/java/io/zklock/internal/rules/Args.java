package io.zklock.internal.rules;

import java.time.Duration;
import java.util.Objects;

/** Argument checks shared by the public API: fail fast, naming the bad value. */
public final class Args {
  /** Longest lock name accepted, in characters; ZooKeeper's own limit on a path is far larger. */
  public static final int MAX_NAME_LENGTH = 512;

  /** The most bytes (UTF-8) of owner data a client may attach to its lock nodes. */
  public static final int MAX_OWNER_DATA_BYTES = 1024;

  private Args() {}

  public static String connectString(String connectString) {
    Objects.requireNonNull(connectString, "connectString");
    String s = connectString.trim();
    if (s.isEmpty()) {
      throw new IllegalArgumentException("connect string must not be empty");
    }
    int slash = s.indexOf('/');
    String hosts = slash >= 0 ? s.substring(0, slash) : s;
    if (slash >= 0) {
      String chroot = s.substring(slash);
      if (!chroot.equals("/")) {
        try {
          validatePath(chroot);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              "connect string '" + connectString + "' has a bad chroot: " + e.getMessage(), e);
        }
      }
    }
    for (String hostPort : hosts.split(",", -1)) {
      String hp = hostPort.trim();
      int colon = hp.lastIndexOf(':');
      if (hp.isEmpty() || colon == 0) {
        throw new IllegalArgumentException(
            "connect string '" + connectString + "' has an empty host in '" + hosts + "'");
      }
      if (colon > 0) {
        String port = hp.substring(colon + 1);
        int p;
        try {
          p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(
              "connect string '" + connectString + "' has a bad port '" + port + "'", e);
        }
        if (p < 1 || p > 65535) {
          throw new IllegalArgumentException(
              "connect string '" + connectString + "' has a port out of range: " + p);
        }
      }
    }
    return s;
  }

  public static String namespace(String namespace) {
    Objects.requireNonNull(namespace, "namespace");
    if (!namespace.startsWith("/")) {
      throw new IllegalArgumentException(
          "namespace must be an absolute ZooKeeper path starting with '/': '" + namespace + "'");
    }
    if (namespace.equals("/")) {
      return "";
    }
    String ns =
        namespace.endsWith("/") ? namespace.substring(0, namespace.length() - 1) : namespace;
    try {
      validatePath(ns);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("bad namespace '" + namespace + "': " + e.getMessage(), e);
    }
    if (ns.equals("/zookeeper") || ns.startsWith("/zookeeper/")) {
      throw new IllegalArgumentException(
          "namespace '" + namespace + "' is inside ZooKeeper's reserved /zookeeper tree");
    }
    return ns;
  }

  /**
   * Checks a lock name: a relative path of one or more segments separated by '/', no empty, '.' or
   * '..' segment, no control or unassigned characters, not starting with the reserved 'zookeeper',
   * at most {@link #MAX_NAME_LENGTH} characters.
   */
  public static String lockName(String name) {
    Objects.requireNonNull(name, "lock name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("lock name must not be empty");
    }
    if (name.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          "lock name is "
              + name.length()
              + " characters long, more than the limit of "
              + MAX_NAME_LENGTH
              + ": '"
              + name.substring(0, 40)
              + "...'");
    }
    if (name.startsWith("/")) {
      throw new IllegalArgumentException(
          "lock name must be relative to the namespace, not start with '/': '" + name + "'");
    }
    try {
      validatePath("/" + name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "bad lock name '" + printable(name) + "': " + e.getMessage(), e);
    }
    return name;
  }

  public static String clientName(String name) {
    Objects.requireNonNull(name, "clientName");
    if (name.isBlank()) {
      throw new IllegalArgumentException("client name must not be blank");
    }
    if (name.length() > 256) {
      throw new IllegalArgumentException(
          "client name is longer than 256 characters: '" + name + "'");
    }
    for (int i = 0; i < name.length(); i++) {
      if (Character.isISOControl(name.charAt(i))) {
        throw new IllegalArgumentException(
            "client name has a control character at index " + i + ": '" + printable(name) + "'");
      }
    }
    return name;
  }

  /** A leader-election participant id: non-blank, at most 256 characters, no control characters. */
  public static String participantId(String id) {
    Objects.requireNonNull(id, "participantId");
    if (id.isBlank()) {
      throw new IllegalArgumentException("participant id must not be blank: '" + id + "'");
    }
    if (id.length() > 256) {
      throw new IllegalArgumentException(
          "participant id is longer than 256 characters: '" + id.substring(0, 40) + "...'");
    }
    for (int i = 0; i < id.length(); i++) {
      if (Character.isISOControl(id.charAt(i))) {
        throw new IllegalArgumentException(
            "participant id has a control character at index " + i + ": '" + printable(id) + "'");
      }
    }
    return id;
  }

  /** A duration that must be positive and fit in int milliseconds (ZooKeeper's unit). */
  public static Duration positiveMillis(Duration d, String what) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive: " + d);
    }
    if (d.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException(what + " is too large (at most ~24 days): " + d);
    }
    if (d.toMillis() == 0) {
      throw new IllegalArgumentException(what + " must be at least 1 ms: " + d);
    }
    return d;
  }

  /** A wait timeout: zero means "do not wait", negative is an error, huge is an error. */
  public static long timeoutNanos(Duration d) {
    Objects.requireNonNull(d, "timeout");
    if (d.isNegative()) {
      throw new IllegalArgumentException("timeout must not be negative: " + d);
    }
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("timeout is too large (at most ~292 years): " + d, e);
    }
  }

  private static void validatePath(String path) {
    String[] segments = path.substring(1).split("/", -1);
    for (String seg : segments) {
      if (seg.isEmpty()) {
        throw new IllegalArgumentException("empty path segment");
      }
      if (seg.equals(".") || seg.equals("..")) {
        throw new IllegalArgumentException("relative segment '" + seg + "'");
      }
    }
    if (segments[0].equals("zookeeper")) {
      throw new IllegalArgumentException("'zookeeper' is reserved by ZooKeeper");
    }
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c == 0
          || (c > '\u0000' && c <= '\u001f')
          || (c >= '\u007f' && c <= '\u009F')
          || (c >= '\ud800' && c <= '\uf8ff')
          || (c >= '\ufff0' && c <= '\uffff')) {
        throw new IllegalArgumentException(
            String.format("invalid character \\u%04x at index %d", (int) c, i - 1));
      }
    }
  }

  private static String printable(String s) {
    StringBuilder sb = new StringBuilder();
    for (char c : s.toCharArray()) {
      if (Character.isISOControl(c)) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }

  /** Validates owner data ({@code ZkLocks.Builder#ownerData}): not null, small. */
  public static String ownerData(String data) {
    if (data == null) {
      throw new IllegalArgumentException("owner data must not be null");
    }
    int bytes = data.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    if (bytes > MAX_OWNER_DATA_BYTES) {
      throw new IllegalArgumentException(
          "owner data is "
              + bytes
              + " bytes in UTF-8, more than the "
              + MAX_OWNER_DATA_BYTES
              + " allowed: '"
              + printable(data.substring(0, Math.min(data.length(), 40)))
              + "...'");
    }
    return data;
  }
}
