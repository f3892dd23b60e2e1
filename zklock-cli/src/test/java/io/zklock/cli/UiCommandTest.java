package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.LeaderElection;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ZkLocks;
import io.zklock.testkit.FaultProxy;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code zklock ui} over plain HTTP: the JSON of every kind of lock, the event stream that pushes a
 * grant without a reload, one watch for many browsers, read-only by default (it creates nothing),
 * releases only with {@code --allow-release} and the token, and {@code zklock ls} agreeing with it.
 */
class UiCommandTest extends UiTestSupport {
  @Test
  void readOnly_namespaceAbsent_createsNothingAndShowsNoLocks() throws Exception {
    String ns = namespace();
    Ui ui = startUi(ns);

    String body = json(ui.base() + "/api/locks");

    assertThat(number(body, "total")).isZero();
    assertThat(observer.exists(ns, false)).as("the view created nothing").isNull();
    assertThat(get(ui.base() + "/").body()).contains("<title>zklock ui</title>");
    HttpResponse<String> post =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(ui.base() + "/api/release?lock=x&action=force"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).as("release is off by default").isEqualTo(403);
  }

  @Test
  void locks_everyKind_holdersAndWaitersInQueueOrder() throws Exception {
    String ns = namespace();
    LockHandle held = client(ns, "holder").mutex("jobs/nightly").acquire();
    CompletableFuture<LockHandle> w1 = client(ns, "waiter-1").mutex("jobs/nightly").acquireAsync();
    await().atMost(WAIT).until(() -> observer.getChildren(ns + "/jobs/nightly", false).size() == 2);
    CompletableFuture<LockHandle> w2 = client(ns, "waiter-2").mutex("jobs/nightly").acquireAsync();
    await().atMost(WAIT).until(() -> observer.getChildren(ns + "/jobs/nightly", false).size() == 3);
    ZkLocks other = client(ns, "other");
    LockHandle lease = other.semaphore("quota", 3).acquire();
    other.readWriteLock("inventory").readLock().acquire();
    other.simpleLock("report").acquire();
    LeaderElection election = other.leaderElection("scheduler", "node-7");
    closeables.add(election);
    election.start();
    await().atMost(WAIT).until(election::isLeader);
    Ui ui = startUi(ns);

    String body = json(ui.base() + "/api/locks");

    assertThat(number(body, "total")).isEqualTo(5);
    assertThat(number(body, "waiting")).isEqualTo(2);
    assertThat(body)
        .contains("\"name\":\"jobs/nightly\"", "\"shownKind\":\"mutex\"")
        .contains("\"name\":\"quota\"", "\"permits\":3")
        .contains("\"shownKind\":\"read-write\"", "\"shownKind\":\"simple\"")
        .contains("\"leader\":\"node-7\"", "\"epoch\":")
        .contains("\"token\":" + held.fencingToken(), "\"token\":" + lease.fencingToken());
    String mutex = json(ui.base() + "/api/lock?name=jobs/nightly");
    assertThat(mutex.indexOf("\"client\":\"holder\""))
        .as("holder, then the waiters in queue order: " + mutex)
        .isLessThan(mutex.indexOf("\"client\":\"waiter-1\""));
    assertThat(mutex.indexOf("\"client\":\"waiter-1\""))
        .isLessThan(mutex.indexOf("\"client\":\"waiter-2\""));
    assertThat(number(mutex, "waitersTotal")).isEqualTo(2);
    w1.cancel(true);
    w2.cancel(true);
  }

  @Test
  void events_newGrant_pushedToEveryBrowserByOneWatch() throws Exception {
    String ns = namespace();
    Ui ui = startUi(ns);
    int browsers = 10;
    List<List<String>> heard = new ArrayList<>();
    for (int i = 0; i < browsers; i++) {
      List<String> lines = new CopyOnWriteArrayList<>();
      heard.add(lines);
      CompletableFuture<?> f =
          HTTP.sendAsync(
                  HttpRequest.newBuilder(URI.create(ui.base() + "/api/events")).build(),
                  HttpResponse.BodyHandlers.ofLines())
              .thenAccept(r -> r.body().forEach(lines::add));
      closeables.add(() -> f.cancel(true));
    }
    await().atMost(WAIT).until(() -> ui.server().browsers() == browsers);
    // The view reads everything, sets its watch, and reads everything again once the watch is set
    // (a change between the two would have gone untold): that second read is the view's own, not a
    // browser's, and on a loaded machine it may not be done yet. Count from after it.
    await()
        .atMost(WAIT)
        .until(
            () -> {
              String s = json(ui.base() + "/api/stats");
              return s.contains("\"watchMode\":\"RECURSIVE\"") && number(s, "zkReads") >= 2;
            });
    long readsBefore = number(json(ui.base() + "/api/stats"), "zkReads");

    LockHandle h = client(ns, "newcomer").mutex("fresh").acquire();

    for (List<String> lines : heard) {
      await()
          .atMost(WAIT)
          .until(
              () ->
                  lines.stream()
                      .anyMatch(
                          l ->
                              l.contains("\"type\":\"granted\"")
                                  && l.contains("\"lock\":\"fresh\"")));
    }
    String locks = json(ui.base() + "/api/locks");
    assertThat(locks).contains("\"name\":\"fresh\"", "\"client\":\"newcomer\"");
    String stats = json(ui.base() + "/api/stats");
    assertThat(stats).contains("\"watchMode\":\"RECURSIVE\"");
    assertThat(number(stats, "watchRequests")).as("one watch for all browsers").isEqualTo(1);
    // one acquisition in a namespace that did not exist creates three znodes (the namespace, the
    // lock's directory, the request's node), each told at most once: at most three reads, however
    // many browsers listen
    assertThat(number(stats, "zkReads") - readsBefore)
        .as("reads of ZooKeeper do not grow with the browsers: " + stats)
        .isLessThanOrEqualTo(3);
    h.release();
    await()
        .atMost(WAIT)
        .until(() -> json(ui.base() + "/api/timeline").contains("\"type\":\"released\""));
  }

  @Test
  void locks_filterSearchAndPaging() throws Exception {
    String ns = namespace();
    ZkLocks many = client(ns, "bulk");
    List<CompletableFuture<LockHandle>> all = new ArrayList<>();
    for (int i = 0; i < 120; i++) {
      all.add(many.mutex(String.format("item-%03d", i)).acquireAsync());
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
    client(ns, "special-client").simpleLock("zz-special").acquire();
    Ui ui = startUi(ns);

    String page2 = json(ui.base() + "/api/locks?offset=50&limit=50");
    String search = json(ui.base() + "/api/locks?q=special");
    String simple = json(ui.base() + "/api/locks?kind=simple");

    System.out.printf(
        "page weight: /api/locks with 50 locks of one holder each: %d bytes%n", page2.length());
    assertThat(number(page2, "total")).isEqualTo(121);
    assertThat(page2).contains("\"name\":\"item-050\"", "\"name\":\"item-099\"");
    assertThat(page2).doesNotContain("\"name\":\"item-049\"", "\"name\":\"item-100\"");
    assertThat(number(search, "matched")).isEqualTo(1);
    assertThat(search).contains("zz-special");
    assertThat(number(simple, "matched")).isEqualTo(1);
  }

  @Test
  void release_withTokenForced_withoutTokenOrCrossSiteRefused() throws Exception {
    String ns = namespace();
    LockHandle held = client(ns, "stuck").mutex("job").acquire();
    Ui ui = startUi(ns, "--allow-release");
    assertThat(ui.server().token()).isNotBlank();
    String url = ui.base() + "/api/release?lock=job&action=force";

    HttpResponse<String> noToken = post(url, null, null);
    HttpResponse<String> wrongToken = post(url, "guess", null);
    HttpResponse<String> crossSite = post(url, ui.server().token(), "http://evil.example");
    assertThat(noToken.statusCode()).isEqualTo(401);
    assertThat(wrongToken.statusCode()).isEqualTo(401);
    assertThat(crossSite.statusCode()).isEqualTo(403);
    assertThat(held.isHeld()).as("refused requests leave the holder alone").isTrue();

    HttpResponse<String> ok = post(url, ui.server().token(), ui.base());

    assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
    assertThat(ok.body()).contains(held.path());
    assertThat(held.lost().get(10, TimeUnit.SECONDS).reason())
        .isEqualTo(LockLostException.Reason.NODE_DELETED);
    await()
        .atMost(WAIT)
        .until(() -> json(ui.base() + "/api/timeline").contains("forced release by 'alice'"));
  }

  @Test
  void release_withShippedLogging_everyRequestAndForcedHolderLoggedAtInfo() throws Exception {
    String ns = namespace();
    ZkLocks stuck = client(ns, "stuck-worker");
    LockHandle held = stuck.mutex("jobs/stuck").acquire();
    try (ZklockProcess ui =
        ZklockProcess.startWithShippedLogging(
            dir, args("ui", ns, "--port", "0", "--allow-release"))) {
      await().atMost(WAIT).until(() -> ui.stdout().contains("access token for releases: "));
      Matcher url = Pattern.compile("(http://[^ ]+)/ ").matcher(ui.stdout());
      Matcher token = Pattern.compile("access token for releases: (\\S+)").matcher(ui.stdout());
      assertThat(url.find() && token.find()).as(ui.stdout()).isTrue();
      String force = url.group(1) + "/api/release?lock=jobs/stuck&action=force";

      HttpResponse<String> refused = post(force, "a-guess", null);
      HttpResponse<String> done = post(force, token.group(1), null);

      assertThat(refused.statusCode()).isEqualTo(401);
      assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
      assertThat(held.lost().get(10, TimeUnit.SECONDS).reason())
          .isEqualTo(LockLostException.Reason.NODE_DELETED);
      await()
          .atMost(WAIT)
          .untilAsserted(
              () ->
                  assertThat(ui.stderr())
                      .as("the audit lines on stderr, with no ZKLOCK_LOG set")
                      .containsPattern(
                          "INFO .*release request from /127\\.0\\.0\\.1:\\d+ by 'alice':"
                              + " force 'jobs/stuck'")
                      .containsPattern(
                          "WARN .*refused release request from /127\\.0\\.0\\.1:\\d+ by 'alice':"
                              + " force 'jobs/stuck': wrong access token")
                      .containsPattern(
                          "(INFO|WARN) .*forced release of 'jobs/stuck' by 'alice' at"
                              + " /127\\.0\\.0\\.1:\\d+: holder stuck-worker .*session 0x"
                              + Long.toHexString(stuck.sessionId())
                              + ".* token "
                              + held.fencingToken()
                              + "\\b.*node "
                              + Pattern.quote(held.path()))
                      .doesNotContain(token.group(1)));
    }
  }

  @Test
  void view_connectionLost_everythingLastKnownSinceTheCut_thenReadAgain() throws Exception {
    String ns = namespace();
    try (FaultProxy proxy = FaultProxy.start(zk.connectString())) {
      LockHandle before = client(ns, "worker-1").mutex("jobs/a").acquire();
      Ui ui = startUiAt(proxy.connectString(), ns, "--session-timeout", "30s");
      String live = json(ui.base() + "/api/view");
      assertThat(live)
          .contains("\"status\":\"connected\"", "\"current\":true")
          .contains("\"server\":\"127.0.0.1:" + proxy.port() + "\"");

      long cut = System.currentTimeMillis();
      proxy.refuse(); // the view's connection drops and stays down: as a stopped server
      await()
          .atMost(WAIT)
          .until(() -> json(ui.base() + "/api/view").contains("\"status\":\"suspended\""));
      String view = json(ui.base() + "/api/view");
      String page = json(ui.base() + "/api/locks");

      assertThat(view).as("nothing shown is live").contains("\"current\":false");
      assertThat(number(view, "knownAt"))
          .as("everything is as known when the connection dropped")
          .isBetween(cut, System.currentTimeMillis());
      assertThat(number(view, "statusSince")).isGreaterThanOrEqualTo(cut);
      assertThat(page)
          .as("the last known locks, with the view's state")
          .contains("\"name\":\"jobs/a\"", "\"current\":false");

      before.release(); // changes the view cannot see while cut off
      client(ns, "worker-2").mutex("jobs/b").acquire();
      proxy.pass();

      await()
          .atMost(WAIT)
          .until(
              () -> {
                String again = json(ui.base() + "/api/locks");
                return again.contains("\"current\":true")
                    && again.contains("\"name\":\"jobs/b\"")
                    && !again.contains("\"name\":\"jobs/a\"");
              });
    }
  }

  @Test
  void held_countsFromTheGrant_waiting_fromTheRequest() throws Exception {
    String ns = namespace();
    LockHandle first = client(ns, "first").mutex("jobs/report").acquire();
    Ui ui = startUi(ns);
    assertThat(lockOf(ui, "jobs/report"))
        .as("held from its creation: ZooKeeper's records say so exactly")
        .contains("\"grantedHow\":\"records\"");
    CompletableFuture<LockHandle> second = client(ns, "second").mutex("jobs/report").acquireAsync();
    await().atMost(WAIT).until(() -> number(lockOf(ui, "jobs/report"), "waitersTotal") == 1);
    Thread.sleep(1_500); // the request waits visibly longer than it will have held

    long beforeRelease = System.currentTimeMillis();
    first.release();
    second.get(10, TimeUnit.SECONDS);
    await().atMost(WAIT).until(() -> "second".equals(text(lockOf(ui, "jobs/report"), "client")));
    String lock = lockOf(ui, "jobs/report");
    long now = System.currentTimeMillis();

    long requested = number(lock, "sinceMillis");
    assertThat(beforeRelease - requested).as("it waited 1.5 s").isGreaterThanOrEqualTo(1_500);
    assertThat(lock).contains("\"grantedHow\":\"seen\"");
    assertThat(number(lock, "grantedFrom")).isGreaterThanOrEqualTo(requested);
    assertThat(number(lock, "grantedTo"))
        .as("seen holding only after the release")
        .isGreaterThanOrEqualTo(beforeRelease)
        .isLessThanOrEqualTo(now);
    assertThat(number(lock, "grantTold"))
        .as("the watch told of the grant after the release")
        .isGreaterThanOrEqualTo(beforeRelease)
        .isLessThanOrEqualTo(now);
  }

  @Test
  void timeline_releaseCloseAndExpiry_toldApart_disconnectedHolderShown() throws Exception {
    String ns = namespace();
    try (FaultProxy line = FaultProxy.start(zk.connectString())) {
      LockHandle released = client(ns, "releaser").mutex("t/released").acquire();
      ZkLocks closer = client(ns, "closer");
      closer.mutex("t/closed").acquire();
      // a session timeout of 6 s: the view's probe (every 2 s) sees the connection gone before
      ZkLocks dying = clientAt(line.connectString(), ns, "dying", java.time.Duration.ofSeconds(6));
      dying.mutex("t/expired").acquire();
      Ui ui = startUi(ns);
      await().atMost(WAIT).until(() -> lockOf(ui, "t/expired").contains("\"link\":\"connected\""));

      released.release();
      closer.close();
      line.refuse(); // as a process killed: its connection goes, its session lives on a while

      await()
          .atMost(WAIT)
          .until(() -> lockOf(ui, "t/expired").contains("\"link\":\"disconnected\""));
      assertThat(lockOf(ui, "t/expired")).contains("\"disconnectedSince\":");
      await()
          .atMost(java.time.Duration.ofSeconds(30))
          .until(() -> json(ui.base() + "/api/timeline").contains("\"type\":\"session-expired\""));
      String timeline = json(ui.base() + "/api/timeline");

      assertThat(event(timeline, "t/released"))
          .contains("\"type\":\"released\"")
          .contains("its session is still connected");
      assertThat(event(timeline, "t/closed"))
          .contains("\"type\":\"session-closed\"")
          .contains("ended with its connection, too soon for an expiry");
      assertThat(event(timeline, "t/expired"))
          .contains("\"type\":\"session-expired\"")
          .contains("no connection since");
    }
  }

  /** The last event of the timeline about {@code lock} that is not a grant or a queueing. */
  private static String event(String timeline, String lock) {
    Matcher m =
        Pattern.compile("\\{\"seq\":[^{}]*\"lock\":\"" + Pattern.quote(lock) + "\"[^{}]*\\}")
            .matcher(timeline);
    String last = null;
    while (m.find()) {
      if (!m.group().contains("\"type\":\"granted\"")
          && !m.group().contains("\"type\":\"queued\"")) {
        last = m.group();
      }
    }
    assertThat(last).as("an event of " + lock + " in " + timeline).isNotNull();
    return last;
  }

  @Test
  void locks_sortFiltersCounts_andUpdatesCarryOnlyWhatChanged() throws Exception {
    String ns = namespace();
    ZkLocks bulk = client(ns, "bulk");
    for (int i = 0; i < 30; i++) {
      bulk.mutex(String.format("item-%02d", i)).acquire();
    }
    List<CompletableFuture<LockHandle>> waiting = new ArrayList<>();
    waiting.add(client(ns, "w-first").mutex("item-10").acquireAsync()); // the longest wait
    await().atMost(WAIT).until(() -> children(ns + "/item-10").size() == 2);
    for (String w : List.of("w1", "w2", "w3")) {
      waiting.add(client(ns, w).mutex("item-05").acquireAsync());
    }
    client(ns, "other").semaphore("quota", 2).acquire();
    await().atMost(WAIT).until(() -> children(ns + "/item-05").size() == 4);
    Ui ui = startUi(ns);

    assertThat(firstName(json(ui.base() + "/api/locks?sort=waiters"))).isEqualTo("item-05");
    assertThat(firstName(json(ui.base() + "/api/locks?sort=wait"))).isEqualTo("item-10");
    assertThat(firstName(json(ui.base() + "/api/locks?sort=name"))).isEqualTo("item-00");
    assertThat(firstName(json(ui.base() + "/api/locks")))
        .as("what matters first")
        .isEqualTo("item-10");
    assertThat(number(json(ui.base() + "/api/locks?waiting=1"), "matched")).isEqualTo(2);
    assertThat(number(json(ui.base() + "/api/locks?kind=semaphore"), "matched")).isEqualTo(1);
    assertThat(number(json(ui.base() + "/api/locks?client=w2"), "matched")).isEqualTo(1);
    String all = json(ui.base() + "/api/locks?sort=name&limit=10");
    assertThat(all)
        .contains("\"kinds\":{\"mutex\":30,\"semaphore\":1}")
        .contains("{\"who\":\"bulk\",\"nodes\":30}")
        .contains("\"clientsTotal\":6");

    // the same page again, as the page asks after a change: rows it has and that did not change
    // come as ids in the order alone
    long version = number(all, "version");
    String have = order(all);
    String same =
        json(ui.base() + "/api/locks?sort=name&limit=10&known=" + version + "&have=" + have);
    assertThat(same).contains("\"locks\":[]").contains("\"order\":[" + have + "]");
    assertThat(same).as("counts unchanged: not sent").doesNotContain("\"kinds\"");
    client(ns, "late").mutex("item-03").acquireAsync(); // item-03 changes: one waiter more
    await().atMost(WAIT).until(() -> number(json(ui.base() + "/api/stats"), "version") > version);
    await()
        .atMost(WAIT)
        .until(
            () ->
                json(ui.base() + "/api/locks?sort=name&limit=10&known=" + version + "&have=" + have)
                    .contains("\"client\":\"late\""));
    String diff =
        json(ui.base() + "/api/locks?sort=name&limit=10&known=" + version + "&have=" + have);
    assertThat(values(diff, "name"))
        .as("only the lock that changed")
        .containsExactly("\"item-03\"");
    System.out.printf(
        "bytes per update, 10 locks a page: the page %d, unchanged %d, one lock changed %d%n",
        all.length(), same.length(), diff.length());
    waiting.forEach(w -> w.cancel(true));
  }

  @Test
  void timeline_followsTheSearch() throws Exception {
    String ns = namespace();
    Ui ui = startUi(ns);
    client(ns, "alpha-worker").mutex("alpha/job").acquire();
    client(ns, "beta-worker").mutex("beta/job").acquire();
    await()
        .atMost(WAIT)
        .until(() -> json(ui.base() + "/api/timeline").contains("\"lock\":\"beta/job\""));

    String alpha = json(ui.base() + "/api/timeline?q=alpha");
    String byClient = json(ui.base() + "/api/timeline?client=beta-worker");

    assertThat(alpha).contains("\"lock\":\"alpha/job\"").doesNotContain("beta/job");
    assertThat(byClient).contains("\"lock\":\"beta/job\"").doesNotContain("alpha/job");
  }

  private static String firstName(String page) {
    Matcher m = Pattern.compile("\"order\":\\[(\\d+)").matcher(page);
    assertThat(m.find()).as(page).isTrue();
    Matcher n =
        Pattern.compile("\\{\"name\":\"([^\"]+)\",\"id\":" + m.group(1) + ",").matcher(page);
    assertThat(n.find()).as(page).isTrue();
    return n.group(1);
  }

  private static String order(String page) {
    Matcher m = Pattern.compile("\"order\":\\[([0-9,]*)\\]").matcher(page);
    assertThat(m.find()).as(page).isTrue();
    return m.group(1);
  }

  @Test
  void lsAndUi_sameLocksQueuesAndTokens() throws Exception {
    String ns = namespace();
    ZkLocks a = client(ns, "client-a");
    ZkLocks b = client(ns, "client-b");
    a.mutex("orders/1").acquire();
    CompletableFuture<LockHandle> queued = b.mutex("orders/1").acquireAsync();
    await().atMost(WAIT).until(() -> observer.getChildren(ns + "/orders/1", false).size() == 2);
    a.semaphore("quota", 2).acquire();
    b.semaphore("quota", 2).acquire();
    a.readWriteLock("stock").readLock().acquire();
    CompletableFuture<LockHandle> writer = b.readWriteLock("stock").writeLock().acquireAsync();
    await().atMost(WAIT).until(() -> observer.getChildren(ns + "/stock", false).size() == 2);
    b.simpleLock("report").acquire();
    Ui ui = startUi(ns);

    Cli.Result ls = Cli.run(args("ls", ns, "--json"));
    String view = json(ui.base() + "/api/locks?sort=name&limit=500&waiters=100000");

    assertThat(ls.exitCode()).as(ls.toString()).isZero();
    for (String field : List.of("name", "node", "state", "client", "token", "session", "since")) {
      assertThat(values(view, field))
          .as("the '" + field + "' of every lock and node, in order")
          .isNotEmpty()
          .isEqualTo(values(ls.out(), field));
    }
    assertThat(values(view, "permits")).isEqualTo(values(ls.out(), "permits")).containsExactly("2");
    queued.cancel(true);
    writer.cancel(true);
  }

  /** Every value of {@code "field":} in a JSON text, in order. */
  private static List<String> values(String json, String field) {
    Matcher m =
        Pattern.compile("\"" + field + "\":(\"(?:[^\"\\\\]|\\\\.)*\"|[^,}\\]]+)").matcher(json);
    List<String> out = new ArrayList<>();
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private static HttpResponse<String> post(String url, String token, String origin)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url))
            .POST(HttpRequest.BodyPublishers.noBody())
            .header(UiServer.OPERATOR_HEADER, "alice");
    if (token != null) {
      b.header(UiServer.TOKEN_HEADER, token);
    }
    if (origin != null) {
      b.header("Origin", origin);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
