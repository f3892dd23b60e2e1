package io.zklock;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/**
 * The ACL given to every znode zklock creates (lock directories and lock nodes).
 *
 * <p>The default, {@link #creatorAllWorldRead()}, lets anyone read (so {@code zklock ls} and other
 * clients can see who holds what) and only the authenticated creator change or delete. It needs an
 * authenticated session ({@link ZkLocks.Builder#authorization}); without one, ZooKeeper refuses
 * creator ACLs, so zklock falls back to {@link #open()} and logs a warning.
 */
public final class NodeAcl {
  private final List<ACL> acl;
  private final String description;

  private NodeAcl(List<ACL> acl, String description) {
    // not List.copyOf: ZooKeeper asks the list contains(null), which immutable lists refuse
    this.acl = Collections.unmodifiableList(new ArrayList<>(acl));
    this.description = description;
  }

  /** Anyone may read; only the creator (its authenticated identity) may change or delete. */
  public static NodeAcl creatorAllWorldRead() {
    List<ACL> list =
        List.of(ZooDefs.Ids.CREATOR_ALL_ACL.get(0), ZooDefs.Ids.READ_ACL_UNSAFE.get(0));
    return new NodeAcl(list, "creator-all, world-read");
  }

  /** Only the creator may read, change or delete. */
  public static NodeAcl creatorOnly() {
    return new NodeAcl(ZooDefs.Ids.CREATOR_ALL_ACL, "creator-all");
  }

  /** Anyone may do anything (ZooKeeper's OPEN_ACL_UNSAFE). */
  public static NodeAcl open() {
    return new NodeAcl(ZooDefs.Ids.OPEN_ACL_UNSAFE, "open");
  }

  /** A custom ACL list. */
  public static NodeAcl of(List<ACL> acl) {
    Objects.requireNonNull(acl, "acl");
    if (acl.isEmpty()) {
      throw new IllegalArgumentException("ACL list must not be empty");
    }
    return new NodeAcl(acl, "custom " + acl);
  }

  /** The ACL entries. */
  public List<ACL> entries() {
    return acl;
  }

  /** Whether this ACL names the creator's identity (and so needs an authenticated session). */
  public boolean needsAuthentication() {
    return acl.stream().anyMatch(a -> "auth".equals(a.getId().getScheme()));
  }

  @Override
  public String toString() {
    return description;
  }
}
