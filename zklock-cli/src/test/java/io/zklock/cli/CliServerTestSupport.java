package io.zklock.cli;

import io.zklock.testkit.EmbeddedZooKeeper;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * One embedded ZooKeeper per test class for the commands that connect, a raw client that watches
 * what they leave in it, a fresh namespace per call of {@link #namespace()}, and the argument lists
 * that point a command at them.
 */
abstract class CliServerTestSupport {
  static EmbeddedZooKeeper zk;
  static ZooKeeper observer;
  private static final AtomicInteger NAMESPACES = new AtomicInteger();

  @TempDir Path dir;

  @BeforeAll
  static void startZooKeeper() throws Exception {
    zk = EmbeddedZooKeeper.standalone().start();
    observer = new ZooKeeper(zk.connectString(), 10_000, e -> {});
  }

  @AfterAll
  static void stopZooKeeper() throws InterruptedException {
    observer.close();
    zk.close();
  }

  /**
   * The children of {@code path}, none when it does not exist. A lock's directory is a container
   * that the server reaps once it is empty, so it can vanish between any two reads: asking whether
   * it exists first and then listing it races with the reaper.
   */
  static List<String> children(String path) throws KeeperException, InterruptedException {
    try {
      return observer.getChildren(path, false);
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    }
  }

  /** A namespace no other test of the run uses. */
  static String namespace() {
    return "/cli-test-" + NAMESPACES.incrementAndGet();
  }

  /** {@code command --connect <server> --namespace ns rest...}. */
  static String[] args(String command, String ns, String... rest) {
    String[] args = new String[rest.length + 5];
    args[0] = command;
    args[1] = "--connect";
    args[2] = zk.connectString();
    args[3] = "--namespace";
    args[4] = ns;
    System.arraycopy(rest, 0, args, 5, rest.length);
    return args;
  }
}
