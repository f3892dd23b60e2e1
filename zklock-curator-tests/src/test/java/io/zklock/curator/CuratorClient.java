package io.zklock.curator;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;

/**
 * A real Curator client with one thread of its own: Curator's locks belong to the thread that took
 * them, so every acquire and release of this client runs there, in order.
 */
final class CuratorClient implements AutoCloseable {
  final String name;
  final CuratorFramework framework;
  private final ExecutorService thread;

  CuratorClient(String name, String connectString) throws InterruptedException {
    this.name = name;
    this.framework =
        CuratorFrameworkFactory.builder()
            .connectString(connectString)
            .sessionTimeoutMs(10_000)
            .connectionTimeoutMs(10_000)
            .retryPolicy(new RetryOneTime(100))
            .build();
    framework.start();
    if (!framework.blockUntilConnected(20, TimeUnit.SECONDS)) {
      throw new IllegalStateException(name + " did not connect to " + connectString);
    }
    this.thread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "curator-" + name);
              t.setDaemon(true);
              return t;
            });
  }

  /** Runs {@code work} on this client's thread. */
  <T> Future<T> run(Callable<T> work) {
    return thread.submit(work);
  }

  /** Work for {@link #call}: a Curator call that returns nothing. */
  interface Step {
    void run() throws Exception;
  }

  /** Runs {@code step} on this client's thread and waits for it (a release, a returned lease). */
  void call(Step step) throws Exception {
    run(() -> {
          step.run();
          return null;
        })
        .get(CuratorTestBase.WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  long sessionId() throws Exception {
    return framework.getZookeeperClient().getZooKeeper().getSessionId();
  }

  @Override
  public void close() {
    thread.shutdownNow();
    framework.close();
  }
}
