package io.zklock;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.StringJoiner;

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
 *
 * <p>The entries are zklock's own type ({@link Entry}: a scheme, an id and a set of {@link
 * Permission}s), the same three things as ZooKeeper's ACL entries; zklock turns them into
 * ZooKeeper's when it creates a node.
 */
public final class NodeAcl {

  /** What an entry lets its identity do to a znode, as ZooKeeper's permissions. */
  public enum Permission {
    /** Read the node's data and list its children. */
    READ,
    /** Set the node's data. */
    WRITE,
    /** Create children (queue for a lock, in a lock directory). */
    CREATE,
    /** Delete children (any lock node, in a lock directory). */
    DELETE,
    /** Set the node's ACL. */
    ADMIN
  }

  /**
   * One entry of an ACL: an identity, named by a scheme and an id as ZooKeeper names them, and what
   * it may do. The schemes ZooKeeper knows include {@code world} (id {@code anyone}: everybody),
   * {@code auth} (id {@code ""}: whatever identities the creating session authenticated with),
   * {@code digest} (id {@code user:base64(sha1(user:password))}), {@code ip} (an address or a
   * range, {@code 10.0.0.0/8}), {@code x509} and {@code sasl}.
   *
   * @param scheme the authentication scheme, not blank
   * @param id the identity within the scheme ({@code ""} for {@code auth})
   * @param permissions what the identity may do: at least one; kept as an unmodifiable copy
   */
  public record Entry(String scheme, String id, Set<Permission> permissions) {
    /**
     * @throws IllegalArgumentException if the scheme is blank or no permission is given
     * @throws NullPointerException if an argument or a permission is null
     */
    public Entry {
      Objects.requireNonNull(scheme, "scheme");
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(permissions, "permissions");
      if (scheme.isBlank()) {
        throw new IllegalArgumentException("ACL entry scheme must not be blank: '" + scheme + "'");
      }
      if (permissions.isEmpty()) {
        throw new IllegalArgumentException(
            "ACL entry " + scheme + ":" + id + " must grant at least one permission");
      }
      permissions.forEach(p -> Objects.requireNonNull(p, "permission"));
      permissions = Collections.unmodifiableSet(EnumSet.copyOf(permissions));
    }

    /** An entry of {@code scheme:id} granting {@code permissions}. */
    public static Entry of(String scheme, String id, Permission... permissions) {
      Set<Permission> set = EnumSet.noneOf(Permission.class);
      Collections.addAll(set, Objects.requireNonNull(permissions, "permissions"));
      return new Entry(scheme, id, set);
    }

    /** Everybody ({@code world:anyone}) may do what {@code permissions} say. */
    public static Entry anyone(Permission... permissions) {
      return of("world", "anyone", permissions);
    }

    /**
     * The creating session's own authenticated identities ({@code auth}) may do what {@code
     * permissions} say; it needs an identity ({@link NodeAcl#needsAuthentication()}).
     */
    public static Entry creator(Permission... permissions) {
      return of("auth", "", permissions);
    }

    /** As {@code zkCli} prints it: {@code world:anyone:cdrwa}. */
    @Override
    public String toString() {
      StringBuilder p = new StringBuilder();
      for (Permission x :
          List.of(
              Permission.CREATE,
              Permission.DELETE,
              Permission.READ,
              Permission.WRITE,
              Permission.ADMIN)) {
        if (permissions.contains(x)) {
          p.append(Character.toLowerCase(x.name().charAt(0)));
        }
      }
      return scheme + ":" + id + ":" + p;
    }
  }

  private static final Permission[] ALL = Permission.values();

  private final List<Entry> entries;
  private final String description;

  private NodeAcl(List<Entry> entries, String description) {
    this.entries = List.copyOf(entries);
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
        List.of(Entry.creator(ALL), Entry.anyone(Permission.READ)), "creator-all, world-read");
  }

  /** Only the creator's identity may read, queue for, change or delete anything. */
  public static NodeAcl creatorOnly() {
    return new NodeAcl(List.of(Entry.creator(ALL)), "creator-all");
  }

  /** Anyone may do anything (ZooKeeper's OPEN_ACL_UNSAFE). */
  public static NodeAcl open() {
    return new NodeAcl(List.of(Entry.anyone(ALL)), "open");
  }

  /**
   * A custom ACL list, for lock nodes and directories alike. Every identity that should queue for a
   * lock needs CREATE and DELETE on it (and can then delete any lock node in it: see {@link
   * #creatorAllWorldRead()}).
   *
   * @throws IllegalArgumentException if the list is empty or has a null entry
   */
  public static NodeAcl of(List<Entry> entries) {
    Objects.requireNonNull(entries, "entries");
    if (entries.isEmpty() || entries.stream().anyMatch(Objects::isNull)) {
      throw new IllegalArgumentException("ACL list must be non-empty, without nulls: " + entries);
    }
    List<Entry> copy = new ArrayList<>(entries);
    return new NodeAcl(copy, "custom " + describe(copy));
  }

  /** A custom ACL of the given entries; see {@link #of(List)}. */
  public static NodeAcl of(Entry... entries) {
    Objects.requireNonNull(entries, "entries");
    return of(Arrays.asList(entries));
  }

  /** The ACL entries, unmodifiable. */
  public List<Entry> entries() {
    return entries;
  }

  /** Whether this ACL names the creator's identity (and so needs an authenticated session). */
  public boolean needsAuthentication() {
    return entries.stream().anyMatch(e -> "auth".equals(e.scheme()));
  }

  private static String describe(List<Entry> entries) {
    StringJoiner out = new StringJoiner(", ", "[", "]");
    entries.forEach(e -> out.add(e.toString()));
    return out.toString();
  }

  @Override
  public String toString() {
    return description;
  }
}
