package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.zklock.ZkLocks;
import io.zklock.testkit.FourLetterWords;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What one open {@code zklock ui} costs ZooKeeper with 1, 10 and 100 browsers: the requests its
 * session sends (the server's own count, {@code cons}) and the watches the server keeps ({@code
 * mntr}), while another client takes and releases 20 locks. Every browser follows the event stream
 * and reads the page's JSON after each change, as the page does. For docs/ui.md; runs only with
 * {@code -Dui.measure=true}.
 */
class UiCostMeasure extends UiTestSupport {
  private static final int CYCLES = 20;

  @Test
  void cost_for1_10_100Browsers() throws Exception {
    assumeTrue(Boolean.getBoolean("ui.measure"), "a measurement: run with -Dui.measure=true");
    StringBuilder table = new StringBuilder("browsers  view requests  per change  watches idle\n");
    for (int browsers : new int[] {1, 10, 100}) {
      String ns = namespace();
      Ui ui = startUi(ns);
      String session = stat(json(ui.base() + "/api/stats"), "session");
      AtomicLong pageReads = new AtomicLong();
      for (int i = 0; i < browsers; i++) {
        CompletableFuture<?> f =
            HTTP.sendAsync(
                    HttpRequest.newBuilder(URI.create(ui.base() + "/api/events")).build(),
                    HttpResponse.BodyHandlers.ofLines())
                .thenAccept(
                    r ->
                        r.body()
                            .filter(l -> l.startsWith("event: change"))
                            .forEach(
                                l -> {
                                  try {
                                    json(ui.base() + "/api/locks");
                                    pageReads.incrementAndGet();
                                  } catch (Exception e) {
                                    throw new IllegalStateException(e);
                                  }
                                }));
        closeables.add(() -> f.cancel(true));
      }
      await().atMost(WAIT).until(() -> ui.server().browsers() == browsers);
      long watchesIdle = watches();
      long before = received(session);
      ZkLocks writer = ZkLocks.builder(zk.connectString()).namespace(ns).build();
      closeables.add(writer);
      for (int i = 0; i < CYCLES; i++) {
        io.zklock.LockHandle h = writer.mutex("job-" + i).acquire();
        String name = "job-" + i;
        await()
            .atMost(WAIT)
            .until(() -> get(ui.base() + "/api/lock?name=" + name).statusCode() == 200);
        h.release();
      }
      await()
          .atMost(WAIT)
          .until(
              () ->
                  count(json(ui.base() + "/api/timeline"), "\"type\":\"released\"") == CYCLES
                      && pageReads.get() >= browsers);
      long sent = received(session) - before;
      table.append(
          String.format(
              Locale.ROOT,
              "%8d  %13d  %10.1f  %12d%n",
              browsers,
              sent,
              sent / (2.0 * CYCLES),
              watchesIdle));
      assertThat(watchesIdle).as("one watch whatever the browsers").isLessThanOrEqualTo(1);
      closeAll();
      closeables.clear();
    }
    System.out.print(
        "zklock ui cost, "
            + CYCLES
            + " acquire+release cycles by another client (ZooKeeper requests of the view's"
            + " session):\n"
            + table);
  }

  private static long watches() {
    String wchs = FourLetterWords.send("127.0.0.1", zk.clientPort(), "wchs");
    Matcher m = Pattern.compile("Total watches:(\\d+)").matcher(wchs);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  /** The packets the server received on the connection of {@code session} (0x...). */
  private static long received(String session) {
    String cons = FourLetterWords.send("127.0.0.1", zk.clientPort(), "cons");
    for (String line : cons.split("\n")) {
      if (line.contains("sid=" + session + ",") || line.contains("sid=" + session + ")")) {
        Matcher m = Pattern.compile("recved=(\\d+)").matcher(line);
        if (m.find()) {
          return Long.parseLong(m.group(1));
        }
      }
    }
    throw new AssertionError("no connection of session " + session + " in: " + cons);
  }

  private static String stat(String json, String field) {
    Matcher m = Pattern.compile("\"" + field + "\":\"([^\"]*)\"").matcher(json);
    assertThat(m.find()).isTrue();
    return m.group(1);
  }

  private static int count(String s, String what) {
    int n = 0;
    for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
      n++;
    }
    return n;
  }
}
