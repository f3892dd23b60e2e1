/**
 * zklock: distributed locks on Apache ZooKeeper. The module exports only {@code io.zklock}, the
 * API; everything in {@code io.zklock.internal} is sealed inside it.
 *
 * <p>ZooKeeper ships as two jars, {@code zookeeper} and {@code zookeeper-jute}, that both contain
 * the packages {@code org.apache.zookeeper.server.quorum} and {@code
 * org.apache.zookeeper.server.persistence}, so the two cannot be separate modules on one module
 * path. zklock reads ZooKeeper's client API, and the jute records it uses ({@code
 * org.apache.zookeeper.data.Stat}, {@code ACL}, {@code Id}), through the automatic module {@code
 * zookeeper}. On the class path nothing more is needed. On the module path, put {@code zookeeper}
 * there and merge the jute jar into it: {@code --patch-module zookeeper=zookeeper-jute.jar}
 * (zklock's own build compiles and tests the module that way). javac, unlike the runtime, does not
 * count the patched-in packages as exported by {@code zookeeper}; hence the {@code exports}
 * warnings suppressed on {@link io.zklock.NodeAcl}'s use of {@code ACL}, and a module whose code
 * names {@code ACL} compiles with {@code --add-exports zookeeper/org.apache.zookeeper.data=<that
 * module>,io.zklock}.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.zklock {
  requires transitive zookeeper; // NodeAcl speaks of ZooKeeper's ACL
  requires org.slf4j;

  exports io.zklock;
}
