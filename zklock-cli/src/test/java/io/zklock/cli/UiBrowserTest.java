package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.zklock.LeaderElection;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ZkLocks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code zklock ui} in headless Chromium, driven over the DevTools protocol: the page shows the
 * waiters in queue order, a new grant appears without a reload, a forced release without the token
 * is refused and one with it (typed in the page, confirmed, clicked) takes the lock away. Saves the
 * screenshot the docs use, {@code docs/ui.png} (with {@code -Dui.saveDocs=true}; else in {@code
 * target/}). Skipped, saying so, where {@code chromium} is not installed; {@link UiCommandTest}
 * checks the same endpoints without a browser.
 *
 * <p>{@code -Dui.latencySamples=N} also measures how long N grants take to appear in the page
 * (median and p99, printed), for docs/ui.md.
 */
class UiBrowserTest extends UiTestSupport {
  @TempDir Path tmp;

  private ZkLocks client(String ns, String name, String data) {
    ZkLocks.Builder b = ZkLocks.builder(zk.connectString()).namespace(ns).clientName(name);
    if (data != null) {
      b.ownerData(data);
    }
    ZkLocks l = b.build();
    closeables.add(l);
    return l;
  }

  private static String lock(String name) {
    return "document.querySelector('.lock[data-lock=\"" + name + "\"]')";
  }

  @Test
  void page_liveGrant_queueOrder_forcedReleaseOnlyWithToken() throws Exception {
    Path chromium = Cdp.chromium();
    assumeTrue(
        chromium != null,
        "chromium is not installed: the browser test of zklock ui is skipped (apt-get install"
            + " chromium); UiCommandTest checks its endpoints without a browser");
    String ns = namespace();
    LockHandle invoice =
        client(ns, "invoice-worker-1", "run 2026-11-27").mutex("billing/invoice-run").acquire();
    List<CompletableFuture<LockHandle>> waiters = new ArrayList<>();
    for (int i = 2; i <= 3; i++) {
      waiters.add(
          client(ns, "invoice-worker-" + i, null).mutex("billing/invoice-run").acquireAsync());
      int n = i;
      await()
          .atMost(WAIT)
          .until(() -> observer.getChildren(ns + "/billing/invoice-run", false).size() == n);
    }
    ZkLocks api = client(ns, "api-gateway-1", null);
    api.semaphore("api-quota", 3).acquire();
    client(ns, "api-gateway-2", null).semaphore("api-quota", 3).acquire();
    LeaderElection leader = client(ns, "scheduler-a", null).leaderElection("scheduler", "node-7");
    closeables.add(leader);
    leader.start();
    await().atMost(WAIT).until(leader::isLeader);
    LeaderElection follower = client(ns, "scheduler-b", null).leaderElection("scheduler", "node-8");
    closeables.add(follower);
    follower.start();
    client(ns, "stock-sync", null).readWriteLock("inventory").readLock().acquire();
    client(ns, "reporter", null).simpleLock("nightly-report").acquire();
    // a path where a Curator LeaderLatch's participant and a LeaderSelector's node mix
    for (String p : new String[] {ns + "/jobs", ns + "/jobs/leader"}) {
      observer.create(p, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
    for (String lockName : new String[] {"latch-", "lock-"}) {
      observer.create(
          ns + "/jobs/leader/_c_" + UUID.randomUUID() + "-" + lockName,
          new byte[0],
          ZooDefs.Ids.OPEN_ACL_UNSAFE,
          CreateMode.EPHEMERAL_SEQUENTIAL);
    }
    Ui ui = startUi(ns, "--allow-release");

    try (Cdp page =
        Cdp.open(
            chromium, Files.createDirectory(tmp.resolve("profile")), ui.base() + "/", 1400, 900)) {
      page.until(lock("billing/invoice-run") + " && document.querySelector('.dot.on')", WAIT);
      page.eval("window.__sameLoad = 42");

      assertThat(
              page.eval(
                  "[..."
                      + lock("billing/invoice-run")
                      + ".querySelectorAll('li.waiter')]"
                      + ".map(e => e.dataset.client).join(',')"))
          .as("the waiters in queue order")
          .isEqualTo("invoice-worker-2,invoice-worker-3");
      assertThat(page.eval(lock("scheduler") + ".textContent")).contains("leader node-7");
      assertThat(page.eval(lock("api-quota") + ".textContent")).contains("2 of 3 permits");
      page.until(lock("jobs/leader"), WAIT);
      assertThat(page.eval(lock("jobs/leader") + ".querySelector('.badge.mix').textContent"))
          .isEqualTo("mixed recipes: curator-latch,curator-mutex");
      assertThat(page.eval(lock("api-quota") + ".querySelector('.badge.mix') === null"))
          .isEqualTo("true");

      // a new grant appears without a reload
      LockHandle fresh = client(ns, "order-worker", null).mutex("orders/42").acquire();
      page.until(
          lock("orders/42") + " && " + lock("orders/42") + ".querySelector('li.holder')", WAIT);
      page.until("document.querySelector('.ev[data-type=granted][data-lock=\"orders/42\"]')", WAIT);
      assertThat(page.eval("window.__sameLoad")).as("no reload").isEqualTo("42");

      // forced release: refused without the token, done with it
      assertThat(
              page.eval(
                  "zkui.release('billing/invoice-run', 'force', '')" + ".then(r => r.status)"))
          .isEqualTo("401");
      assertThat(
              page.eval(
                  "zkui.release('billing/invoice-run', 'force', 'not-the-token')"
                      + ".then(r => r.status)"))
          .isEqualTo("401");
      assertThat(invoice.isHeld()).as("refused: still held").isTrue();
      page.eval(
          "(() => { document.getElementById('token').value = '"
              + ui.server().token()
              + "'; document.getElementById('operator').value = 'alice';"
              + " window.confirm = () => true; window.alert = m => { window.__alert = m; };"
              + lock("billing/invoice-run")
              + ".querySelector('button.force').click(); return 'clicked'; })()");
      assertThat(invoice.lost().get(15, TimeUnit.SECONDS).reason())
          .isEqualTo(LockLostException.Reason.NODE_DELETED);
      page.until(
          lock("billing/invoice-run")
              + ".querySelector('li.holder').dataset.client === 'invoice-worker-2'",
          WAIT);
      page.until("document.querySelector('.ev[data-type=lost]')", WAIT);
      assertThat(page.eval("document.querySelector('.ev[data-type=lost]').textContent"))
          .contains("forced release by 'alice'");
      page.screenshot(docsDir().resolve("ui.png"));

      int samples = Integer.getInteger("ui.latencySamples", 0);
      if (samples > 0) {
        measureLatency(page, client(ns, "latency", null), samples);
      }
      fresh.release();
    }
    waiters.forEach(w -> w.cancel(true));
  }

  @Test
  void readOnlyPage_showsNoReleaseControl() throws Exception {
    Path chromium = Cdp.chromium();
    assumeTrue(chromium != null, "chromium is not installed: the browser test is skipped");
    String ns = namespace();
    client(ns, "invoice-worker-1", null).mutex("billing/invoice-run").acquire();
    Ui ui = startUi(ns);

    try (Cdp page =
        Cdp.open(
            chromium, Files.createDirectory(tmp.resolve("profile")), ui.base() + "/", 1400, 900)) {
      page.until(lock("billing/invoice-run") + " && document.querySelector('li.holder')", WAIT);

      assertThat(page.eval("getComputedStyle(document.getElementById('releasebar')).display"))
          .as("the release bar of a read-only view is not displayed")
          .isEqualTo("none");
      assertThat(page.eval("document.querySelectorAll('button.force, button.request').length"))
          .isEqualTo("0");
      assertThat(page.eval("document.body.innerText")).doesNotContain("Releases are on");
    }
  }

  /** How long a grant takes to appear in the page: from acquire() returning to the DOM. */
  private static void measureLatency(Cdp page, ZkLocks locks, int samples) throws Exception {
    List<Long> micros = new ArrayList<>();
    for (int i = 0; i < samples; i++) {
      String name = "latency/l-" + i;
      long t0 = System.nanoTime();
      LockHandle h = locks.mutex(name).acquire();
      long granted = System.nanoTime();
      page.until(lock(name), Duration.ofSeconds(10));
      micros.add((System.nanoTime() - granted) / 1_000);
      h.release();
      if (t0 < 0) {
        throw new AssertionError();
      }
    }
    Collections.sort(micros);
    System.out.printf(
        Locale.ROOT,
        "ui latency (grant to page, %d samples): median %.1f ms, p99 %.1f ms, max %.1f ms%n",
        samples,
        micros.get(samples / 2) / 1000.0,
        micros.get(Math.min(samples - 1, (int) Math.ceil(samples * 0.99) - 1)) / 1000.0,
        micros.get(samples - 1) / 1000.0);
  }

  /**
   * Where the screenshot goes: {@code target/}, or the repository's {@code docs/} with {@code
   * -Dui.saveDocs=true} (so that a build leaves the tracked file alone).
   */
  private static Path docsDir() {
    Path here = Path.of("").toAbsolutePath();
    Path docs = here.resolveSibling("docs");
    return Boolean.getBoolean("ui.saveDocs") && Files.isDirectory(docs)
        ? docs
        : here.resolve("target");
  }
}
