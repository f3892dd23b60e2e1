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

  /**
   * Anyone may read; only the creator's authenticated identity may create, change or delete. Every
   * client that takes part in the locks must therefore authenticate as the same identity (a service
   * account); clients of other identities can watch (for example with {@code zklock ls}) but not
   * queue, and cannot delete another's lock node.
   *
   * <p>ZooKeeper's permission to delete a node is the DELETE permission on its parent, for every
   * child alike: a directory that lets several identities queue also lets each delete the others'
   * nodes. That is why the default grants one identity everything.
   */
  public static NodeAcl creatorAllWorldRead() {
    return new NodeAcl(
        List.of(
            ZooDefs.Ids.CREATOR_ALL_ACL.get(0),
            new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)),
        "creator-all, world-read");
  }

  /** Only the creator's identity may read, queue for, change or delete anything. */
  public static NodeAcl creatorOnly() {
    return new NodeAcl(ZooDefs.Ids.CREATOR_ALL_ACL, "creator-all");
  }

  /** Anyone may do anything (ZooKeeper's OPEN_ACL_UNSAFE). */
  public static NodeAcl open() {
    return new NodeAcl(ZooDefs.Ids.OPEN_ACL_UNSAFE, "open");
  }

  /**
   * A custom ACL list, for lock nodes and directories alike. Every identity that should queue for a
   * lock needs CREATE and DELETE on it (and can then delete any lock node in it: see {@link
   * #creatorAllWorldRead()}).
   */
  @SuppressWarnings("exports") // ACL is exported at run time: see module-info.java
  public static NodeAcl of(List<ACL> acl) {
    Objects.requireNonNull(acl, "acl");
    if (acl.isEmpty() || acl.contains(null)) {
      throw new IllegalArgumentException("ACL list must be non-empty, without nulls: " + acl);
    }
    return new NodeAcl(acl, "custom " + acl);
  }

  /** The ACL entries. */
  @SuppressWarnings("exports") // ACL is exported at run time: see module-info.java
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
