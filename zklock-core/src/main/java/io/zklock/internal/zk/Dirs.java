package io.zklock.internal.zk;

import io.zklock.ZkLockException;
import io.zklock.internal.rules.AclRule;
import io.zklock.internal.rules.ErrorKind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.ClientInfo;
import org.apache.zookeeper.data.Id;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates lock directories: CONTAINER nodes (the server deletes a container once it has had
 * children and is empty again), with every missing ancestor up to the namespace. Asynchronous,
 * never blocking.
 *
 * <p>For a client with an identity (and without {@code trustExistingAcl()}), it also guards where
 * requests queue: before the first request in a directory, the namespace, every directory between
 * it and the lock directory, and the lock directory itself are read ({@code getACL}) or created
 * with the client's ACL; one that another identity may write ({@link AclRule}) is refused with an
 * error naming it and its ACL. A directory found safe is remembered (up to {@link #MAX_REMEMBERED}
 * of them), so the check costs nothing after the first request, one set lookup: its parents being
 * safe too, only this client's identities can delete and recreate it.
 */
public final class Dirs {
  private static final Logger log = LoggerFactory.getLogger(Dirs.class);

  /**
   * How many checked directories are remembered. A client that locks ever new names (one per order,
   * say) would otherwise remember them all; past this the memory is dropped and directories are
   * checked again on their next use (one read each).
   */
  static final int MAX_REMEMBERED = 10_000;

  /** How often one walk re-reads a directory that appeared or vanished under it. */
  private static final int MAX_RACES = 10;

  private final String namespace;
  private final List<ACL> acl;
  private final boolean guard;
  private final SessionPort session;
  private final Set<String> safe = ConcurrentHashMap.newKeySet();
  private volatile Set<Id> own = Set.of();

  /**
   * @param guard whether to check the ACLs of existing directories before queueing in them
   * @param session for waiting on the connection when a check meets a connection loss
   */
  public Dirs(String namespace, List<ACL> acl, boolean guard, SessionPort session) {
    this.namespace = namespace;
    this.acl = acl;
    this.guard = guard;
    this.session = session;
  }

  /**
   * Learns this client's identities. Called once, at build, when guarding.
   *
   * <p>The identity of a {@code digest} login is computed here, as ZooKeeper's {@code
   * DigestAuthenticationProvider} does ({@code digest:user:base64(sha1(user:password))}). The
   * server is asked ({@code whoAmI}) only when the session may carry an identity that cannot be
   * computed: see {@link #asksServer}. {@code whoAmI} is new in ZooKeeper 3.7; a 3.5 or 3.6 server
   * answers it by closing the connection, so such a client needs a 3.7 server or {@code
   * trustExistingAcl()} (docs/ops.md). A client with digest logins only sends no request an older
   * server lacks.
   */
  public void learnIdentities(Session.Conn conn, SessionConfig config) {
    ZkClient zk = conn.client();
    if (!guard || zk == null) {
      return;
    }
    Set<Id> ids = new HashSet<>();
    for (SessionConfig.Auth a : config.auth()) {
      if ("digest".equals(a.scheme())) {
        ids.add(AclRule.digestId(new String(a.credentials(), StandardCharsets.UTF_8)));
      }
    }
    boolean clientCertificate = config.tls() != null && config.tls().keyStore() != null;
    if (asksServer(config.auth(), clientCertificate, zk.saslLogin())) {
      try {
        List<ClientInfo> infos = zk.whoAmI();
        if (infos != null) {
          for (ClientInfo i : infos) {
            if (!"ip".equals(i.getAuthScheme())) {
              ids.add(new Id(i.getAuthScheme(), i.getUser()));
            }
          }
        } else {
          log.warn(
              "the server did not answer whoAmI (a ZooKeeper server before 3.7 does not know it"
                  + " and closes the connection); this client's identity is taken from its digest"
                  + " logins only: use a 3.7+ server, or trustExistingAcl()");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        log.debug("whoAmI failed; using the configured digest identities only", e);
      }
    }
    own = Set.copyOf(ids);
  }

  /**
   * Creates the namespace where missing (PERSISTENT nodes, each missing segment), on {@code conn};
   * blocking, at build.
   *
   * @throws io.zklock.ZkLockException naming the namespace, the connect string and the code
   */
  public void createNamespace(Session.Conn conn, String connectString) {
    if (namespace.isEmpty()) {
      return;
    }
    BlockingOps zk = new BlockingOps(conn.ops());
    StringBuilder path = new StringBuilder();
    try {
      for (String seg : namespace.substring(1).split("/")) {
        path.append('/').append(seg);
        String p = path.toString();
        if (zk.exists(p) == null) {
          try {
            zk.create(p, new byte[0], acl, CreateMode.PERSISTENT);
          } catch (KeeperException.NodeExistsException raced) {
            // another client made it first
          }
        }
      }
    } catch (KeeperException e) {
      throw new ZkLockException(
          "cannot create the namespace "
              + namespace
              + " at '"
              + connectString
              + "': "
              + e.code()
              + (e.code() == Code.NOAUTH ? " (not authorized)" : ""),
          path.toString(),
          conn.sessionId(),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ZkLockException("interrupted while creating the namespace " + namespace, e);
    }
  }

  /**
   * Whether this client's identities can only be learnt from the server: it authenticates with a
   * scheme other than {@code digest} (whose identity each server's provider derives its own way),
   * with a TLS client certificate (the server's {@code x509} provider names it), or with a SASL
   * login (Kerberos, for example). Digest logins alone are computed locally.
   */
  static boolean asksServer(
      List<SessionConfig.Auth> auth, boolean clientCertificate, boolean saslLogin) {
    if (clientCertificate || saslLogin) {
      return true;
    }
    for (SessionConfig.Auth a : auth) {
      if (!"digest".equals(a.scheme())) {
        return true;
      }
    }
    return false;
  }

  /** Whether requests may queue in {@code dir} without a check: the hot path, one set lookup. */
  public boolean trusted(String dir) {
    return !guard || safe.contains(dir);
  }

  /**
   * Checks (and creates where missing) the namespace and every directory down to {@code dir}, then
   * runs {@code proceed} on ZooKeeper's event thread, or {@code fail} with the refusal; after a
   * connection loss, {@code retry} runs once connected again (the caller then checks anew).
   */
  public void verify(
      Session.Conn conn,
      String dir,
      Runnable proceed,
      Consumer<Session.Conn> retry,
      Runnable closed,
      Consumer<io.zklock.ZkLockException> fail) {
    verify(conn, dir, false, proceed, retry, closed, fail);
  }

  /**
   * As {@link #verify(Session.Conn, String, Runnable, Consumer, Runnable, Consumer)}, creating
   * {@code dir} itself PERSISTENT when {@code persistent} (see {@link #ensure(Session.Conn, String,
   * boolean, Consumer)}).
   */
  public void verify(
      Session.Conn conn,
      String dir,
      boolean persistent,
      Runnable proceed,
      Consumer<Session.Conn> retry,
      Runnable closed,
      Consumer<io.zklock.ZkLockException> fail) {
    List<String> paths = new ArrayList<>();
    int from = namespace.length() + 1;
    if (!namespace.isEmpty()) {
      paths.add(namespace);
    }
    for (int i = dir.indexOf('/', from); i >= 0; i = dir.indexOf('/', i + 1)) {
      if (i > 0) {
        paths.add(dir.substring(0, i));
      }
    }
    paths.add(dir);
    new Walk(
            conn,
            paths,
            persistent ? dir : namespace,
            proceed,
            () -> session.whenConnected(retry, closed),
            fail)
        .step(0);
  }

  private void remember(String dir) {
    if (safe.size() >= MAX_REMEMBERED) {
      safe.clear();
    }
    safe.add(dir);
  }

  /** One check of the directories on the way to a lock directory. */
  private final class Walk {
    private final Session.Conn conn;
    private final List<String> paths;
    private final String persistentLeaf;
    private final Runnable proceed;
    private final Runnable retry;
    private final Consumer<io.zklock.ZkLockException> fail;
    private int races;

    Walk(
        Session.Conn conn,
        List<String> paths,
        String persistentLeaf,
        Runnable proceed,
        Runnable retry,
        Consumer<io.zklock.ZkLockException> fail) {
      this.conn = conn;
      this.paths = paths;
      this.persistentLeaf = persistentLeaf;
      this.proceed = proceed;
      this.retry = retry;
      this.fail = fail;
    }

    void step(int i) {
      while (i < paths.size() && safe.contains(paths.get(i))) {
        i++;
      }
      if (i == paths.size()) {
        proceed.run();
        return;
      }
      int at = i;
      String p = paths.get(at);
      conn.ops()
          .getACL(
              p,
              (rc, path, ctx, dirAcl, stat) -> {
                Code code = Code.get(rc);
                switch (code) {
                  case OK:
                    judged(at, p, dirAcl);
                    break;
                  case NONODE:
                    create(at, p);
                    break;
                  default:
                    if (ErrorKind.retryable(code)) {
                      retry.run();
                      break;
                    }
                    fail.accept(
                        new io.zklock.ZkLockException(
                            "cannot read the ACL of " + p + ": " + code,
                            p,
                            conn.sessionId(),
                            null));
                }
              });
    }

    private void judged(int at, String p, List<ACL> dirAcl) {
      switch (AclRule.judge(dirAcl, own, acl)) {
        case OWN:
          remember(p);
          step(at + 1);
          break;
        case CANNOT_CREATE:
          // Not ours to queue in: the create (here or below) is refused as not authorized, which
          // says it best. Not remembered, so a later grant of the right is noticed.
          if (at + 1 == paths.size()) {
            proceed.run();
          } else {
            walkOn(at);
          }
          break;
        case SHARED:
        default:
          fail.accept(
              new io.zklock.ZkLockException(
                  (at == 0 && p.equals(namespace) ? "namespace " : "lock directory ")
                      + p
                      + " exists with an ACL that lets identities other than this client's"
                      + " create, delete, change or re-permission its nodes: "
                      + AclRule.describe(dirAcl)
                      + " (writers not this client's: "
                      + AclRule.describe(AclRule.foreignWriters(dirAcl, own, acl))
                      + ")"
                      + (AclRule.redacted(dirAcl)
                          ? "; digests shown as user:x were hidden by the server, which shows them"
                              + " only to identities with ADMIN on the node"
                          : "")
                      + ". A lock node there would not be protected by its own ACL, so zklock"
                      + " does not queue there. Restrict it (setAcl, see docs/ops.md) or opt in"
                      + " with ZkLocks.Builder#trustExistingAcl()",
                  p,
                  conn.sessionId(),
                  null));
      }
    }

    /** Past a directory we may not create in, without remembering it. */
    private void walkOn(int at) {
      int next = at + 1;
      while (next < paths.size() && safe.contains(paths.get(next))) {
        next++;
      }
      if (next == paths.size()) {
        proceed.run();
      } else {
        step(next);
      }
    }

    private void create(int at, String p) {
      conn.ops()
          .create(
              p,
              new byte[0],
              acl,
              p.equals(namespace) || p.equals(persistentLeaf)
                  ? CreateMode.PERSISTENT
                  : CreateMode.CONTAINER,
              (rc, path, ctx, name, stat) -> {
                Code code = Code.get(rc);
                switch (code) {
                  case OK:
                    remember(p); // made with this client's ACL
                    step(at + 1);
                    break;
                  case NODEEXISTS:
                  case NONODE:
                    // someone made it first (read its ACL), or a parent vanished: go again from
                    // the top, the vanished parent no longer counted as safe
                    if (++races > MAX_RACES) {
                      retry.run();
                      return;
                    }
                    if (code == Code.NONODE && at > 0) {
                      safe.remove(paths.get(at - 1));
                    }
                    step(code == Code.NONODE ? 0 : at);
                    break;
                  default:
                    if (ErrorKind.retryable(code)) {
                      retry.run();
                      break;
                    }
                    fail.accept(
                        new io.zklock.ZkLockException(
                            "cannot create "
                                + p
                                + ": "
                                + (code == Code.NOAUTH
                                    ? "not authorized (the ACL of its parent does not let this"
                                        + " identity create)"
                                    : code.name()),
                            p,
                            conn.sessionId(),
                            null));
                }
              });
    }
  }

  /**
   * Sends the creation of {@code dir} (a CONTAINER; the namespace PERSISTENT) and returns at once,
   * for a lock node's create sent right behind it: one session's requests are applied in order, so
   * that create finds the directory, and a missing directory costs no round trip of its own (issue
   * 32: a per-entity lock is often the first use of its directory, or its directory was reaped as
   * an empty container). The reply is not waited for: created or already there is what it is for;
   * anything else (the parent missing, say) fails the create behind it too, whose request then
   * walks the path with {@link #ensure}.
   */
  public void createAhead(Session.Conn conn, String dir) {
    createAhead(conn, dir, false);
  }

  /**
   * As {@link #createAhead(Session.Conn, String)}, {@code dir} PERSISTENT when {@code persistent}.
   */
  public void createAhead(Session.Conn conn, String dir, boolean persistent) {
    conn.ops()
        .create(
            dir,
            new byte[0],
            acl,
            persistent || dir.equals(namespace) ? CreateMode.PERSISTENT : CreateMode.CONTAINER,
            (rc, path, ctx, name, stat) -> {});
  }

  /** Ensures {@code dir} exists, then calls {@code done} with null, or with the error. */
  public void ensure(Session.Conn conn, String dir, Consumer<io.zklock.ZkLockException> done) {
    ensure(conn, dir, false, done);
  }

  /**
   * As {@link #ensure(Session.Conn, String, Consumer)}, {@code dir} itself PERSISTENT when {@code
   * persistent} (its missing ancestors CONTAINERs, never empty while it stands): for a path shared
   * with a library that makes its lock directory once per lock object and then creates in it
   * without making it again (kazoo's {@code Lock}), which a reaped container would fail.
   */
  public void ensure(
      Session.Conn conn, String dir, boolean persistent, Consumer<io.zklock.ZkLockException> done) {
    conn.ops()
        .create(
            dir,
            new byte[0],
            acl,
            persistent || dir.equals(namespace) ? CreateMode.PERSISTENT : CreateMode.CONTAINER,
            (rc, path, ctx, name, stat) -> {
              Code code = Code.get(rc);
              switch (code) {
                case OK:
                case NODEEXISTS:
                  done.accept(null);
                  break;
                case NONODE:
                  String parent = dir.substring(0, dir.lastIndexOf('/'));
                  if (parent.isEmpty()) {
                    done.accept(
                        new io.zklock.ZkLockException("cannot create " + dir + ": " + code));
                    return;
                  }
                  ensure(
                      conn,
                      parent,
                      err -> {
                        if (err != null) {
                          done.accept(err);
                        } else {
                          ensure(conn, dir, persistent, done);
                        }
                      });
                  break;
                default:
                  if (ErrorKind.retryable(code)) {
                    done.accept(null); // the caller's retry meets the loss, or the new session
                    break;
                  }
                  done.accept(
                      new io.zklock.ZkLockException(
                          "cannot create lock directory: " + code.name(),
                          dir,
                          conn.sessionId(),
                          null));
              }
            });
  }
}
