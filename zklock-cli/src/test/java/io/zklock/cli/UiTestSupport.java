package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.ZkLocks;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import picocli.CommandLine;

/** Runs {@code zklock ui} in this JVM on a free port, and reads it over HTTP. */
abstract class UiTestSupport extends CliServerTestSupport {
  static final Duration WAIT = Duration.ofSeconds(15);
  static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  /** A running {@code zklock ui} in this JVM. */
  record Ui(UiServer server, String base, Cli.Result[] result) {}

  /** Starts {@code zklock ui} on a free port and keeps it running until the test ends. */
  Ui startUi(String ns, String... extra) throws Exception {
    return startUiAt(zk.connectString(), ns, extra);
  }

  /** Starts {@code zklock ui} on a free port against {@code connect}. */
  Ui startUiAt(String connect, String ns, String... extra) throws Exception {
    CommandLine cl = Main.commandLine();
    UiCommand cmd = cl.getSubcommands().get("ui").getCommand();
    CompletableFuture<UiServer> started = new CompletableFuture<>();
    CountDownLatch stop = new CountDownLatch(1);
    cmd.whenStarted =
        s -> {
          started.complete(s);
          try {
            stop.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
    String[] args =
        Stream.concat(
                Stream.of("ui", "--connect", connect, "--namespace", ns, "--port", "0"),
                Stream.of(extra))
            .toArray(String[]::new);
    Cli.Result[] result = new Cli.Result[1];
    Thread t =
        new Thread(
            () -> {
              result[0] = Cli.run(cl, args);
              started.completeExceptionally(new AssertionError("ui ended: " + result[0]));
            });
    t.start();
    closeables.add(
        () -> {
          stop.countDown();
          t.join(10_000);
        });
    UiServer s = started.get(20, TimeUnit.SECONDS);
    return new Ui(s, "http://127.0.0.1:" + s.port(), result);
  }

  ZkLocks client(String ns, String name) {
    ZkLocks l = ZkLocks.builder(zk.connectString()).namespace(ns).clientName(name).build();
    closeables.add(l);
    return l;
  }

  /** A client of {@code connect} with a session timeout, closed after the test. */
  ZkLocks clientAt(String connect, String ns, String name, Duration sessionTimeout) {
    ZkLocks l =
        ZkLocks.builder(connect)
            .namespace(ns)
            .clientName(name)
            .sessionTimeout(sessionTimeout)
            .build();
    closeables.add(l);
    return l;
  }

  /** The JSON object of one lock from {@code /api/lock}. */
  static String lockOf(Ui ui, String name) throws Exception {
    return json(ui.base() + "/api/lock?name=" + name);
  }

  /** The first value of a string field, or null. */
  static String text(String json, String field) {
    Matcher m = Pattern.compile("\"" + field + "\":\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(json);
    return m.find() ? m.group(1) : null;
  }

  static HttpResponse<String> get(String url) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }

  static String json(String url) throws Exception {
    HttpResponse<String> r = get(url);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r.body();
  }

  static long number(String json, String field) {
    Matcher m = Pattern.compile("\"" + field + "\":(\\d+)").matcher(json);
    assertThat(m.find()).as(field + " in " + json).isTrue();
    return Long.parseLong(m.group(1));
  }
}
