package io.zklock;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/**
 * The ACL given to every znode zklock creates (the namespace, lock directories and lock nodes), set
 * with {@link ZkLocks.Builder#acl}. Znodes that exist already keep their ACL.
 *
 * <p>Which ACL a client uses, as {@link ZkLocks.Builder#build()} decides it:
 *
 * <ul>
 *   <li>With an identity ({@link ZkLocks.Builder#authorization} or {@link ZkLocks.Builder#digest})
 *       and no ACL set: {@link #creatorAllWorldRead()}, which lets anyone read (so {@code zklock
 *       ls} and other clients can see who holds what) and only that identity change or delete.
 *   <li>Without an identity and no ACL set: {@link #open()}. ZooKeeper refuses creator ACLs to a
 *       session without an identity, so there is nothing else such a client could use; zklock
 *       chooses it silently (no warning). Everything it creates may then be changed or deleted by
 *       anyone who can reach the ensemble.
 *   <li>An ACL that names the creator ({@link #needsAuthentication()}: {@link
 *       #creatorAllWorldRead()}, {@link #creatorOnly()}, or a custom list with an {@code auth}
 *       entry) set without an identity is not fallen back from: {@code build()} throws {@link
 *       IllegalArgumentException} naming the ACL, before connecting.
 *   <li>Any other ACL set explicitly is used as given, with or without an identity.
 * </ul>
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
