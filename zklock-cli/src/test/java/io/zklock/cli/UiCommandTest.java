package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.LeaderElection;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ZkLocks;
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
    String view = json(ui.base() + "/api/locks?limit=500&waiters=100000");

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
