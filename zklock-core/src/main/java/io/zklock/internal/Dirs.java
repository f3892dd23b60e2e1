package io.zklock.internal;

import java.util.List;
import java.util.function.Consumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.ACL;

/**
 * Creates lock directories: CONTAINER nodes (the server deletes a container once it has had
 * children and is empty again), with every missing ancestor up to the namespace. Asynchronous,
 * never blocking.
 */
final class Dirs {
  private final String namespace;
  private final List<ACL> acl;

  Dirs(String namespace, List<ACL> acl) {
    this.namespace = namespace;
    this.acl = acl;
  }

  /** Ensures {@code dir} exists, then calls {@code done} with null, or with the error. */
  void ensure(Session.Conn conn, String dir, Consumer<io.zklock.ZkLockException> done) {
    conn.zk()
        .create(
            dir,
            new byte[0],
            acl,
            dir.equals(namespace) ? CreateMode.PERSISTENT : CreateMode.CONTAINER,
            (rc, path, ctx, name) -> {
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
                          ensure(conn, dir, done);
                        }
                      });
                  break;
                case CONNECTIONLOSS:
                case OPERATIONTIMEOUT:
                  done.accept(null); // the caller's retry will meet the loss and recover
                  break;
                default:
                  done.accept(
                      new io.zklock.ZkLockException(
                          "cannot create lock directory: " + code.name(),
                          dir,
                          conn.sessionId(),
                          null));
              }
            },
            null);
  }
}
