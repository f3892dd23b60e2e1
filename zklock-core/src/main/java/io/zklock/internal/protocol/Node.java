package io.zklock.internal.protocol;

/** A node of a request: its path, its creation zxid (the fencing token) and its session. */
public record Node(String path, long czxid, long session) {
  /** The node's name in its directory. */
  public String name() {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
