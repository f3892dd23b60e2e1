package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.zklock.LeaderElection;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
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
      page.until(
          "document.querySelector('tr[data-lock=\"billing/invoice-run\"]')"
              + " && document.querySelector('#link.ok')",
          WAIT);
      page.until("document.querySelector('tr[data-lock=\"jobs/leader\"] .badge.mix')", WAIT);
      assertThat(
              page.eval(
                  "document.querySelector('tr[data-lock=\"jobs/leader\"] .badge.mix').textContent"))
          .as("the table says so too")
          .isEqualTo("mixed recipes: curator-latch,curator-mutex");
      page.eval(cardsView());
      page.until(lock("billing/invoice-run"), WAIT);
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
      page.until("document.querySelector('.ev[data-type=forced]')", WAIT);
      assertThat(page.eval("document.querySelector('.ev[data-type=forced]').textContent"))
          .contains("forced release by 'alice'");

      int samples = Integer.getInteger("ui.latencySamples", 0);
      if (samples > 0) {
        measureLatency(page, client(ns, "latency", null), samples);
      }
      fresh.release();
    }
    waiters.forEach(w -> w.cancel(true));
  }

  /** Switches the page to its cards (it opens on the table). */
  private static String cardsView() {
    return "(() => { const v = document.getElementById('view'); v.value = 'cards';"
        + " v.onchange(); return 'cards'; })()";
  }

  /** Sets a control of the page and fires its change, as a user's choice. */
  private static String choose(String id, String value) {
    return "(() => { const e = document.getElementById('"
        + id
        + "'); if (e.type === 'checkbox') e.checked = '"
        + value
        + "' === 'true'; else e.value = '"
        + value
        + "'; (e.onchange || (() => e.dispatchEvent(new Event('input'))))(); return 'ok'; })()";
  }

  /** The lock names of the table's rows, in order. */
  private static String rowNames() {
    return "[...document.querySelectorAll('tr.lock-row')].map(r => r.dataset.lock).join(',')";
  }

  @Test
  void readOnlyView_serverStopped_everyLockLastKnown_pageLinkApart() throws Exception {
    Path chromium = Cdp.chromium();
    assumeTrue(chromium != null, "chromium is not installed: the browser test is skipped");
    EmbeddedZooKeeper server = EmbeddedZooKeeper.standalone().start();
    closeables.add(server);
    String cs = server.connectString();
    String ns = "/stopped";
    Duration timeout = Duration.ofSeconds(30);
    ZkLocks billing = clientAt(cs, ns, "invoice-worker-1", timeout);
    billing.mutex("billing/invoice-run").acquire();
    List<CompletableFuture<LockHandle>> waiting = new ArrayList<>();
    waiting.add(
        clientAt(cs, ns, "invoice-worker-2", timeout).mutex("billing/invoice-run").acquireAsync());
    clientAt(cs, ns, "api-gateway-1", timeout).semaphore("api-quota", 3).acquire();
    clientAt(cs, ns, "api-gateway-2", timeout).semaphore("api-quota", 3).acquire();
    clientAt(cs, ns, "stock-sync", timeout).readWriteLock("inventory").readLock().acquire();
    clientAt(cs, ns, "reporter", timeout).simpleLock("nightly-report").acquire();
    LeaderElection leader =
        clientAt(cs, ns, "scheduler-a", timeout).leaderElection("scheduler", "node-7");
    closeables.add(leader);
    leader.start();
    await().atMost(WAIT).until(leader::isLeader);
    Ui ui = startUiAt(cs, ns, "--session-timeout", "4s"); // read-only: no --allow-release
    ZkLocks orders = clientAt(cs, ns, "order-worker", timeout);
    LockHandle order = orders.mutex("orders/42").acquire();

    try (Cdp page =
        Cdp.open(
            chromium, Files.createDirectory(tmp.resolve("profile")), ui.base() + "/", 1400, 820)) {
      page.until("document.querySelectorAll('tr.lock-row').length === 6", WAIT);
      page.until("document.querySelector('#zk.ok')", WAIT);
      assertThat(page.eval("document.getElementById('zktxt').textContent"))
          .contains("connected to 127.0.0.1:" + server.clientPort());
      assertThat(page.eval("getComputedStyle(document.getElementById('releasebar')).display"))
          .as("the release bar of a read-only view is not displayed")
          .isEqualTo("none");
      assertThat(page.eval("document.querySelectorAll('button.force, button.request').length"))
          .isEqualTo("0");
      assertThat(page.eval("document.body.innerText")).doesNotContain("Releases are on");
      assertThat(page.eval("document.querySelectorAll('.known').length")).isEqualTo("6");
      assertThat(page.eval("getComputedStyle(document.querySelector('.known')).display"))
          .as("live: no lock is marked last known")
          .isEqualTo("none");
      order.release(); // a release in the timeline, then ZooKeeper stops
      page.until("document.querySelector('.ev[data-type=released]')", WAIT);

      long stopped = System.currentTimeMillis();
      server.close();

      page.until("document.getElementById('zktxt').textContent.includes('connection lost')", WAIT);
      assertThat(page.eval("document.getElementById('zk').className")).doesNotContain("ok");
      assertThat(page.eval("document.body.classList.contains('stale')")).isEqualTo("true");
      assertThat(page.eval("document.getElementById('stale').innerText"))
          .contains("lost its connection to ZooKeeper")
          .contains("Nothing below is live: every lock is as last known at");
      assertThat(
              page.eval(
                  "[...document.querySelectorAll('tr.lock-row')].every(r =>"
                      + " getComputedStyle(r.querySelector('.known')).display !== 'none'"
                      + " && r.querySelector('.known').textContent.startsWith('last known'))"))
          .as("every lock shown is marked as last known")
          .isEqualTo("true");
      assertThat(page.eval("document.getElementById('linktxt').textContent"))
          .as("the page's own link to the view is a separate light, still live")
          .isEqualTo("page: live");
      assertThat(page.eval("document.getElementById('link').className")).contains("ok");
      // the view's session is declared lost at its deadline: said so, still nothing live
      page.until(
          "document.getElementById('zktxt').textContent.includes('session lost, reconnecting')",
          Duration.ofSeconds(20));
      assertThat(page.eval("document.getElementById('stale').className")).contains("bad");
      assertThat(System.currentTimeMillis() - stopped).isGreaterThan(1_000);
      page.screenshot(docsDir().resolve("ui.png"));
    }
    waiting.forEach(w -> w.cancel(true));
  }

  /** The "held longer than" menu at {@code millis} (an entry added for times a test can wait). */
  private static String heldLongerThan(long millis) {
    return "(() => { const s = document.getElementById('held');"
        + " if (![...s.options].some(o => o.value === '"
        + millis
        + "')) s.add(new Option('"
        + millis
        + " ms', '"
        + millis
        + "')); s.value = '"
        + millis
        + "'; s.onchange(); return 'ok'; })()";
  }

  private static String range() {
    return "document.getElementById('range').textContent";
  }

  /** {@code n} locks of every kind under {@code ns}, some with waiters; the last waiter first. */
  private List<CompletableFuture<LockHandle>> manyLocks(String ns, int n) throws Exception {
    List<CompletableFuture<LockHandle>> all = new ArrayList<>();
    ZkLocks[] bulk = {client(ns, "bulk-a", null), client(ns, "bulk-b", null)};
    for (int i = 0; i < n; i++) {
      all.add(bulk[i % 2].mutex(String.format("orders/%05d", i)).acquireAsync());
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(300, TimeUnit.SECONDS);
    ZkLocks api = client(ns, "api-gateway", null);
    ZkLocks stock = client(ns, "stock-sync", null);
    for (int i = 0; i < 5; i++) {
      api.semaphore("quota/" + i, 3).acquire();
      stock.readWriteLock("stock/" + i).readLock().acquire();
    }
    List<CompletableFuture<LockHandle>> waiting = new ArrayList<>();
    waiting.add(client(ns, "w-early", null).mutex("orders/00042").acquireAsync());
    await().atMost(WAIT).until(() -> children(ns + "/orders/00042").size() == 2);
    for (int w = 1; w <= 3; w++) {
      waiting.add(client(ns, "w-" + w, null).mutex("orders/00007").acquireAsync());
      int size = w + 1;
      await().atMost(WAIT).until(() -> children(ns + "/orders/00007").size() == size);
    }
    return waiting;
  }

  @Test
  void atScale_tableSortsFiltersCountsAndTheTimelineFollowsTheSearch() throws Exception {
    Path chromium = Cdp.chromium();
    assumeTrue(chromium != null, "chromium is not installed: the browser test is skipped");
    int n = Integer.getInteger("ui.scaleLocks", 500);
    String ns = namespace();
    List<CompletableFuture<LockHandle>> waiting = manyLocks(ns, n);
    Ui ui = startUi(ns);

    try (Cdp page =
        Cdp.open(
            chromium, Files.createDirectory(tmp.resolve("profile")), ui.base() + "/", 1400, 900)) {
      page.until("document.querySelectorAll('tr.lock-row').length === 100", WAIT);
      assertThat(page.eval(range())).isEqualTo("1\u2013100 of " + (n + 10));
      assertThat(page.eval("document.getElementById('breakdown').innerText"))
          .as("counts per kind and per client")
          .contains("mutex " + n, "read-write 5", "semaphore 5")
          .contains("clients (8)", "api-gateway 5", "w-early 1");
      assertThat(page.eval(rowNames()))
          .as("what matters first: the longest wait, then the other waited-for lock")
          .startsWith("orders/00042,orders/00007,");

      page.eval(choose("sort", "waiters"));
      page.until(rowNames() + ".startsWith('orders/00007,orders/00042,')", WAIT);
      page.eval(choose("sort", "name"));
      page.until(rowNames() + ".startsWith('orders/00000,orders/00001,')", WAIT);
      // longest hold: by the latest possible grant, oldest first. Not by name: a lock whose
      // directory was made first is created first, whatever its name
      String drawn = "(zkui.applied.length ? zkui.applied[zkui.applied.length - 1].at : 0)";
      String before = page.eval(drawn);
      page.eval(choose("sort", "hold"));
      page.until(
          drawn
              + " > "
              + before
              + " && (() => { const t = [...document.querySelectorAll('tr.lock-row td.hd .age')]"
              + ".map(a => +a.dataset.gt); return t.length === 100"
              + " && t.every((x, i) => i === 0 || t[i - 1] <= x); })()",
          WAIT);

      page.eval(choose("waiting", "true"));
      page.until(range() + " === '1\u20132 of 2'", WAIT);
      page.eval(choose("waiting", "false"));
      page.eval(choose("kind", "semaphore"));
      page.until(range() + " === '1\u20135 of 5'", WAIT);
      page.eval(choose("kind", ""));
      page.eval(choose("client", "w-2"));
      page.until(range() + " === '1\u20131 of 1' && " + rowNames() + " === 'orders/00007'", WAIT);
      page.eval(choose("client", ""));
      page.eval(heldLongerThan(3_600_000));
      page.until(range() + " === '0 of 0'", WAIT);
      page.eval(heldLongerThan(1));
      page.until(range() + " === '1\u2013100 of " + (n + 10) + "'", WAIT);
      page.eval(heldLongerThan(0));

      // the timeline follows the search
      ZkLocks late = client(ns, "late-worker", null);
      late.mutex("misc/alpha").acquire();
      late.mutex("misc/beta").acquire();
      page.until("document.querySelector('.ev[data-lock=\"misc/beta\"]')", WAIT);
      page.eval(choose("q", "misc/alpha"));
      page.until(
          range()
              + " === '1\u20131 of 1' && document.querySelector('.ev[data-lock=\"misc/alpha\"]')"
              + " && !document.querySelector('.ev[data-lock=\"misc/beta\"]')",
          WAIT);
      assertThat(page.eval("document.getElementById('tlfilter').textContent"))
          .isEqualTo("only \"misc/alpha\"");
      page.eval(choose("q", ""));
      page.until("document.querySelector('.ev[data-lock=\"misc/beta\"]')", WAIT);
      assertThat(page.eval("JSON.stringify(window.__errors)")).isEqualTo("[]");
    }
    waiting.forEach(w -> w.cancel(true));
  }

  /**
   * The page's load and update at scale ({@code -Dui.scaleMeasure=100,1000,10000}): for each number
   * of locks, the time from navigation to the first table drawn (the page's own clock), the bytes
   * of that first {@code /api/locks}, then 20 updates that change the first row (a request queues
   * on its lock and is withdrawn): the time from the event's arrival to the table drawn again, and
   * the bytes each update carried (the event and the {@code /api/locks} diff). Prints a table;
   * saves the 10,000-lock table's screenshot.
   */
  @Test
  void measure_pageLoadAndUpdates_atScale() throws Exception {
    String sizes = System.getProperty("ui.scaleMeasure", "");
    assumeTrue(!sizes.isEmpty(), "a measure: -Dui.scaleMeasure=100,1000,10000");
    Path chromium = Cdp.chromium();
    assumeTrue(chromium != null, "chromium is not installed");
    List<String> lines = new ArrayList<>();
    lines.add(
        "locks | view's first read ms | page load ms | first /api/locks bytes | update ms"
            + " median (p90) | bytes per update median (max)");
    for (String size : sizes.split(",")) {
      int n = Integer.parseInt(size.strip());
      String ns = namespace();
      List<CompletableFuture<LockHandle>> waiting = manyLocks(ns, n);
      long t0 = System.nanoTime();
      Ui ui = startUi(ns);
      long firstRead = (System.nanoTime() - t0) / 1_000_000;
      try (Cdp page =
          Cdp.open(
              chromium,
              Files.createDirectory(tmp.resolve("profile-" + n)),
              ui.base() + "/",
              1400,
              1000)) {
        page.until("window.zkui && zkui.metrics.loadMs != null", Duration.ofSeconds(60));
        String load = page.eval("Math.round(zkui.metrics.loadMs)");
        String firstBytes =
            page.eval(
                "performance.getEntriesByType('resource').filter(e =>"
                    + " e.name.includes('/api/locks'))[0].decodedBodySize");
        ZkLocks mover = client(ns, "mover", null);
        for (int k = 0; k < 20; k++) {
          int before = Integer.parseInt(page.eval("zkui.metrics.updates.length"));
          String first = page.eval("document.querySelector('tr.lock-row').dataset.lock");
          CompletableFuture<LockHandle> q = mover.mutex(first).acquireAsync();
          page.until("zkui.metrics.updates.length > " + before, WAIT);
          int mid = Integer.parseInt(page.eval("zkui.metrics.updates.length"));
          q.cancel(true);
          page.until("zkui.metrics.updates.length > " + mid, WAIT);
        }
        String ms =
            page.eval("JSON.stringify(zkui.metrics.updates.map(u => Math.round(u.ms * 10) / 10))");
        String bytes = page.eval("JSON.stringify(zkui.metrics.updates.map(u => u.bytes))");
        lines.add(
            n
                + " | "
                + firstRead
                + " | "
                + load
                + " | "
                + firstBytes
                + " | "
                + stat(ms, 0.5)
                + " ("
                + stat(ms, 0.9)
                + ") | "
                + stat(bytes, 0.5)
                + " ("
                + stat(bytes, 1.0)
                + ")");
        if (n >= 10_000) {
          page.screenshot(docsDir().resolve("ui-10000-locks.png"));
        }
      }
      waiting.forEach(w -> w.cancel(true));
      System.out.println("ui scale: " + lines.get(lines.size() - 1));
    }
    String table = String.join("\n", lines);
    System.out.println(table);
    Files.writeString(Path.of("target", "ui-scale.txt"), table + "\n");
  }

  /** The {@code q} quantile of a JSON array of numbers. */
  private static String stat(String jsonArray, double q) {
    String body = jsonArray.replaceAll("[\\[\\]]", "");
    if (body.isBlank()) {
      return "-";
    }
    List<Double> v = new ArrayList<>();
    for (String x : body.split(",")) {
      v.add(Double.parseDouble(x));
    }
    Collections.sort(v);
    double x = v.get(Math.min(v.size() - 1, (int) Math.ceil(q * v.size()) - 1));
    return x == Math.rint(x) ? Long.toString((long) x) : String.format(Locale.ROOT, "%.1f", x);
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
