/**
 * zklock: distributed locks on Apache ZooKeeper. The module exports only {@code io.zklock}, the
 * API; everything in {@code io.zklock.internal} is sealed inside it. The API names no ZooKeeper
 * type (its ACLs are {@link io.zklock.NodeAcl}'s own entries), so code that uses it compiles with
 * {@code requires io.zklock;} alone.
 *
 * <p>At run time zklock uses ZooKeeper's client through the automatic module {@code zookeeper}.
 * ZooKeeper ships as two jars, {@code zookeeper} and {@code zookeeper-jute}, that both contain the
 * packages {@code org.apache.zookeeper.server.quorum} and {@code
 * org.apache.zookeeper.server.persistence}, so the two cannot be separate modules on one module
 * path: on the module path, put {@code zookeeper} there and merge the jute jar into it, {@code
 * --patch-module zookeeper=zookeeper-jute.jar}, as zklock's own build compiles and tests the
 * module. On the class path nothing more is needed.
 */
@SuppressWarnings("requires-automatic")
module io.zklock {
  requires zookeeper; // the client, inside the implementation only
  requires org.slf4j;
  requires jdk.jfr; // zklock's Flight Recorder events (part of the JDK)

  exports io.zklock;
}
