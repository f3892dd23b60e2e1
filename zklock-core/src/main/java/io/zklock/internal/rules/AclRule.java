package io.zklock.internal.rules;

import io.zklock.NodeAcl;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;
import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

/**
 * Whether a client with an identity may queue in an existing directory: the pure rule behind the
 * ACL check of the lock directories ({@code Dirs}). ZooKeeper lets whoever has DELETE on a
 * directory delete any child, CREATE queue ahead of us, WRITE change its data and ADMIN change its
 * ACL (and so grant itself the rest). A directory where another identity has any of these is
 * shared: a lock node in it is not protected by its own ACL.
 *
 * <p>An entry is this client's own if its id is one of the session's identities ({@code whoAmI()},
 * or the digests of the configured credentials), or if the configured ACL grants the same id at
 * least the same rights (the user chose to share with it). {@code ip} identities are never counted
 * as one's own: every client of that address has them.
 */
public final class AclRule {
  /** The permissions that let another identity touch our lock nodes or the directory. */
  static final int WRITES = Perms.CREATE | Perms.DELETE | Perms.WRITE | Perms.ADMIN;

  private AclRule() {}

  /** What the rule says of one directory. */
  public enum Verdict {
    /** Only this client's identities (or those the configured ACL names) may write. */
    OWN,
    /** Others may write, and this client may create: queueing here would not be protected. */
    SHARED,
    /** This client may not create here at all: a create would be refused (NOAUTH) anyway. */
    CANNOT_CREATE
  }

  /**
   * Judges a directory's ACL.
   *
   * @param dirAcl the directory's ACL as stored by the server
   * @param own this session's identities (scheme and id)
   * @param configured the ACL this client gives the nodes it creates
   */
  public static Verdict judge(List<ACL> dirAcl, Set<Id> own, List<ACL> configured) {
    if (!mayCreate(dirAcl, own)) {
      return Verdict.CANNOT_CREATE;
    }
    return foreignWriters(dirAcl, own, configured).isEmpty() ? Verdict.OWN : Verdict.SHARED;
  }

  /** The entries that let an identity other than this client's write. */
  public static List<ACL> foreignWriters(List<ACL> dirAcl, Set<Id> own, List<ACL> configured) {
    List<ACL> out = new ArrayList<>();
    for (ACL a : dirAcl) {
      int writes = a.getPerms() & WRITES;
      if (writes == 0 || isOwn(a.getId(), own)) {
        continue;
      }
      if (grantedByConfig(a.getId(), writes, configured)) {
        continue;
      }
      out.add(a);
    }
    return out;
  }

  /** Whether some entry may give this client CREATE: its own ids, anyone, or an address. */
  static boolean mayCreate(List<ACL> dirAcl, Set<Id> own) {
    for (ACL a : dirAcl) {
      if ((a.getPerms() & Perms.CREATE) == 0) {
        continue;
      }
      String scheme = a.getId().getScheme();
      if ("world".equals(scheme)
          || "ip".equals(scheme)
          || isOwn(a.getId(), own)
          || redactedOwnUser(a, own)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code id} is a digest id whose hash the server hid ({@code user:x}: it shows hashes
   * only to clients with ADMIN on the node) and whose user is one of ours: it may be ours, so we
   * may be able to create; it is not counted as ours, so it does not pass as safe either.
   */
  static boolean redactedOwnUser(ACL a, Set<Id> own) {
    Id id = a.getId();
    if (!"digest".equals(id.getScheme()) || !id.getId().endsWith(":x")) {
      return false;
    }
    if ((a.getPerms() & Perms.ADMIN) != 0) {
      return false; // were it ours, we would have ADMIN here and the server would show the hash
    }
    String user = id.getId().substring(0, id.getId().length() - 2);
    for (Id o : own) {
      if ("digest".equals(o.getScheme()) && o.getId().startsWith(user + ":")) {
        return true;
      }
    }
    return false;
  }

  /** Whether some digest entry had its hash hidden by the server ({@code user:x}). */
  public static boolean redacted(List<ACL> acl) {
    return acl.stream()
        .anyMatch(a -> "digest".equals(a.getId().getScheme()) && a.getId().getId().endsWith(":x"));
  }

  private static boolean isOwn(Id id, Set<Id> own) {
    return !"ip".equals(id.getScheme()) && !"world".equals(id.getScheme()) && own.contains(id);
  }

  private static boolean grantedByConfig(Id id, int writes, List<ACL> configured) {
    for (ACL c : configured) {
      if (!"auth".equals(c.getId().getScheme())
          && c.getId().equals(id)
          && (c.getPerms() & writes) == writes) {
        return true;
      }
    }
    return false;
  }

  /** The id ZooKeeper's digest scheme gives {@code user:password}: {@code user:base64(sha1)}. */
  public static Id digestId(String userColonPassword) {
    int colon = userColonPassword.indexOf(':');
    String user = colon < 0 ? userColonPassword : userColonPassword.substring(0, colon);
    try {
      byte[] sha1 =
          MessageDigest.getInstance("SHA1")
              .digest(userColonPassword.getBytes(StandardCharsets.UTF_8));
      return new Id("digest", user + ":" + Base64.getEncoder().encodeToString(sha1));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA1 in this JVM", e);
    }
  }

  /**
   * The ZooKeeper ACL of {@code acl}: the same entries, in ZooKeeper's types, in the same order.
   * Not an immutable list: ZooKeeper asks the list whether it {@code contains(null)}, which
   * immutable lists refuse.
   */
  public static List<ACL> toZooKeeper(NodeAcl acl) {
    List<ACL> out = new ArrayList<>(acl.entries().size());
    for (NodeAcl.Entry e : acl.entries()) {
      out.add(new ACL(bits(e.permissions()), new Id(e.scheme(), e.id())));
    }
    return Collections.unmodifiableList(out);
  }

  /** ZooKeeper's permission bits of {@code permissions}. */
  static int bits(Set<NodeAcl.Permission> permissions) {
    int bits = 0;
    for (NodeAcl.Permission p : permissions) {
      bits |=
          switch (p) {
            case READ -> Perms.READ;
            case WRITE -> Perms.WRITE;
            case CREATE -> Perms.CREATE;
            case DELETE -> Perms.DELETE;
            case ADMIN -> Perms.ADMIN;
          };
    }
    return bits;
  }

  /** An ACL as {@code zkCli} prints it: {@code [world:anyone:cdrwa, digest:alice:...:cdrwa]}. */
  public static String describe(List<ACL> acl) {
    StringJoiner out = new StringJoiner(", ", "[", "]");
    for (ACL a : acl) {
      out.add(a.getId().getScheme() + ":" + a.getId().getId() + ":" + perms(a.getPerms()));
    }
    return out.toString();
  }

  static String perms(int p) {
    StringBuilder s = new StringBuilder();
    if ((p & Perms.CREATE) != 0) {
      s.append('c');
    }
    if ((p & Perms.DELETE) != 0) {
      s.append('d');
    }
    if ((p & Perms.READ) != 0) {
      s.append('r');
    }
    if ((p & Perms.WRITE) != 0) {
      s.append('w');
    }
    if ((p & Perms.ADMIN) != 0) {
      s.append('a');
    }
    return s.toString();
  }
}
